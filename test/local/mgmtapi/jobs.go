package mgmtapi

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// Job states, as the real Job model names them (models/Job.java, JobStatus).
const (
	jobWaiting   = "WAITING"
	jobCompleted = "COMPLETED"
	jobError     = "ERROR"
)

// jobView is the JSON of GET /api/v0/ops/executor/job (openapi.json components.schemas.Job).
// The document types submit_time and end_time as int64, but the model serialises them with
// Jackson's ToStringSerializer (models/Job.java), so they are strings on the wire, which is
// what cass-operator decodes (client.go: JobDetails.SubmitTime string). error is null unless
// the job failed (the agent's getJobStatus sets it only then).
type jobView struct {
	ID            string         `json:"id"`
	Type          string         `json:"type"`
	Status        string         `json:"status"`
	SubmitTime    string         `json:"submit_time"`
	EndTime       string         `json:"end_time"`
	Error         *string        `json:"error"`
	StatusChanges []statusChange `json:"status_changes"`
}

type statusChange struct {
	Status     string `json:"status"`
	ChangeTime string `json:"change_time"`
	Message    string `json:"message"`
}

// jobs runs the asynchronous operations (v1 decommission and cleanup) in the background, as
// the agent's executor does, and keeps their state for the job route.
type jobs struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	now    func() time.Time

	mu   sync.Mutex
	byID map[string]*jobView
}

func newJobs() *jobs {
	ctx, cancel := context.WithCancel(context.Background())
	return &jobs{ctx: ctx, cancel: cancel, now: time.Now, byID: map[string]*jobView{}}
}

func millis(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// submit starts op and returns the job's id at once.
func (j *jobs) submit(kind string, op func(ctx context.Context) error) string {
	id := newID()
	j.mu.Lock()
	// end_time is the agent's finishedTime, 0 until the job ends.
	j.byID[id] = &jobView{ID: id, Type: kind, Status: jobWaiting, SubmitTime: millis(j.now()), EndTime: "0", StatusChanges: []statusChange{}}
	j.mu.Unlock()
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		err := op(j.ctx)
		j.mu.Lock()
		defer j.mu.Unlock()
		v := j.byID[id]
		v.EndTime = millis(j.now())
		if err != nil {
			msg := err.Error()
			v.Status, v.Error = jobError, &msg
			return
		}
		v.Status = jobCompleted
	}()
	return id
}

// get is a copy of job id's state, or false when there is no such job.
func (j *jobs) get(id string) (jobView, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	v, ok := j.byID[id]
	if !ok {
		return jobView{}, false
	}
	return *v, true
}

func (j *jobs) close() {
	j.cancel()
	j.wg.Wait()
}

// newID is a random (version 4) UUID, the form the real executor's job ids have.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
