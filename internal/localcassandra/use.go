package localcassandra

import (
	"context"
	"os"
	"os/exec"
)

// UsingEnv is set in the environment of a command run by Use: the command uses the cluster and
// must not wait for users.lock itself.
const UsingEnv = "CASSBENCH_USERS_LOCK_HELD"

// Use runs cmd as a user of the cluster, as a test process is one: deciding under cluster.lock,
// it takes the cluster as it is when node 1 answers CQL (restarting a cluster that others may
// be using is not its call), and otherwise starts one of o, replacing a stopped cluster of
// other options (nothing runs, so no one loses a cluster). It then holds users.lock shared
// until cmd exits, so that no one stops or replaces the cluster under it.
func (c *Cluster) Use(ctx context.Context, o Options, cmd *exec.Cmd) error {
	mutex, err := OpenLock(c.LockPath("cluster.lock"))
	if err != nil {
		return err
	}
	defer func() { _ = mutex.Close() }()
	if err := mutex.Wait(ctx, Exclusive, usersLockWait, func() {
		c.logf("waiting for %s", mutex.Name())
	}); err != nil {
		return err
	}
	if c.probe(ctx, 1, "", "") == nil {
		c.logf("Cassandra runs already: using its node 1 (%s) as it is", c.NodeIP(1))
	} else {
		o.Reset = true
		if err := c.Start(ctx, o); err != nil {
			return err
		}
	}
	users, err := OpenLock(c.LockPath("users.lock"))
	if err != nil {
		return err
	}
	defer func() { _ = users.Close() }()
	if err := users.Wait(ctx, Shared, usersLockWait, func() {
		c.logf("waiting for %s", users.Name())
	}); err != nil {
		return err
	}
	mutex.Unlock()
	cmd.Env = append(os.Environ(), UsingEnv+"=1")
	return cmd.Run()
}
