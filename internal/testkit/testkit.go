// Package testkit holds the fixtures that tests of more than one package
// need: a buffer one goroutine writes while the test reads it, an
// in-process capability whose answers the test sets, and a gRPC connection
// to a server in memory, and a wait for the catalog to reach a state
// (ForCatalog). Only tests import it.
package testkit

import (
	"bytes"
	"context"
	"net"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/helios-agents/helios/kernel/skills"
)

// SyncBuffer is a bytes.Buffer safe to write from one goroutine (a logger,
// a command's loop) while the test reads it from another.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Capability is an in-process capability (a kernel.Capability with
// skills) whose answer the test sets. Its next answers can be incomplete,
// as a folder vanishing mid-read makes a root's.
type Capability struct {
	name       string
	mu         sync.Mutex
	set        skills.Set
	flaky      int // how many next answers are incomplete
	invalidate func()
}

// NewCapability returns a capability called name that answers ss, after
// flaky incomplete answers.
func NewCapability(name string, flaky int, ss ...skills.Skill) *Capability {
	return &Capability{name: name, set: skills.Set{Skills: ss}, flaky: flaky}
}

// Name returns the capability's name.
func (c *Capability) Name() string { return c.name }

// Skills returns the answer the test set, or an incomplete one while
// flaky answers are left.
func (c *Capability) Skills(context.Context) (skills.Set, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flaky > 0 {
		c.flaky--
		return skills.Set{Incomplete: true}, nil
	}
	return c.set, nil
}

// Watch keeps the kernel's invalidate for Answer.
func (c *Capability) Watch(invalidate func(), _ <-chan struct{}) error {
	c.mu.Lock()
	c.invalidate = invalidate
	c.mu.Unlock()
	return nil
}

// Answer makes set the capability's answer, after flaky incomplete ones,
// and invalidates it: one signal, as a change on disk gives.
func (c *Capability) Answer(flaky int, set skills.Set) {
	c.mu.Lock()
	c.set, c.flaky = set, flaky
	invalidate := c.invalidate
	c.mu.Unlock()
	invalidate()
}

// Skill is a skill whose content is body.
func Skill(name, body string) skills.Skill {
	return skills.Skill{Name: name, Description: "About " + name + ".",
		Load: func(context.Context) (skills.Content, error) { return skills.Content{Name: name, Body: body}, nil }}
}

// ServeInMemory serves s on an in-memory listener and returns a client
// connection to it, dialled with opts; both end with the test.
func ServeInMemory(t testing.TB, s *grpc.Server, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	go s.Serve(lis)
	t.Cleanup(s.Stop)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		append(slices.Clip(opts),
			grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) { return lis.Dial() }),
			grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	require.NoError(t, err, "dial the in-memory server")
	t.Cleanup(func() { conn.Close() })
	return conn
}
