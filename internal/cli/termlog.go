package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/cassbench/cassbench/internal/podenv"
)

// WriteTerminationLog writes a pod's result where Kubernetes reads it. The default path is
// only written if it exists, so running a command by hand (as root, even) never creates
// files under /dev.
func WriteTerminationLog(path string, data []byte) error {
	if path == "" {
		return nil
	}
	flags := os.O_WRONLY | os.O_TRUNC
	if path != podenv.TerminationLog {
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrNotExist) && path == podenv.TerminationLog {
		return nil
	}
	if err != nil {
		return fmt.Errorf("writing termination log: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close() // the write error is the one to report
		return fmt.Errorf("writing termination log: %w", err)
	}
	return f.Close()
}
