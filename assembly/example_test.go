package assembly_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/sandbox"
)

// The README's embedding program: load a config, add an in-process
// capability with a typed tool:before guard, open a session, run a prompt.
// Here the config points at a scripted model that asks for a force push and
// then repeats what the guard told it.
func ExampleLoad() {
	model := modeltest.Start(
		modeltest.Call("Bash", `{"command":"git push --force origin main"}`),
		func(req modeltest.Recorded) modeltest.Reply {
			return modeltest.Reply{Text: "Not done: " + req.Last().Content}
		},
	)
	defer model.Close()
	dir, err := os.MkdirTemp("", "helios-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	config := filepath.Join(dir, "helios.config.json")
	err = os.WriteFile(config, []byte(`{"workDir": ".", "skills": {"userRoots": []}, "sessions": {"dir": "sessions"},
		"model": {"baseURL": "`+model.URL()+`", "name": "scripted", "apiKeyEnv": ""}}`), 0o644)
	if err != nil {
		log.Fatal(err)
	}

	// The program, as the README prints it (with the config's path).
	sandbox.Main() // first: the model's commands run confined in a re-executed copy of this program
	ctx := context.Background()
	guard := hooks.ToolBefore.Bind("no-force-push", func(_ context.Context, in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
		deny := strings.Contains(string(in.Call.Arguments), "--force")
		return kernel.ToolDecision{Deny: deny, Reason: "force pushes are not allowed here"}, deny, nil
	})
	k, err := assembly.Load(ctx, config, assembly.Options{Capabilities: []kernel.Capability{kernel.NewCapability("house-rules", guard)}})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()
	s, err := k.OpenSession(ctx, kernel.SessionConfig{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	answer, err := s.Run(ctx, "Force-push my branch.")
	fmt.Println(answer, err)
	// Output: Not done: tool call Bash denied: force pushes are not allowed here <nil>
}
