package host

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/plugins/internal/wire"
)

// pluginClient is the part of *plugin.Client an instance needs.
type pluginClient interface {
	Exited() bool
	Kill()
}

// start launches one process of the plugin: checksum, handshake, AutoMTLS,
// the skills watch, then Describe, all within StartTimeout. On failure
// nothing is left running and the error names the plugin; the last lines
// the plugin wrote on stderr are added, since they usually say why.
func (c *Capability) start(ctx context.Context) (*instance, plugins.Description, error) {
	t0 := time.Now()
	cmd := exec.Command(c.cfg.Command, c.cfg.Args...)
	cmd.Env = c.env
	cmd.SysProcAttr = c.procAttr()
	var secure *plugin.SecureConfig
	if c.want != nil {
		secure = &plugin.SecureConfig{Checksum: c.want, Hash: sha256.New()}
	}
	stderr := &lineLogger{l: c.logger, stream: "stderr"}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  plugins.Handshake,
		Plugins:          wire.PluginMap(nil),
		Cmd:              cmd,
		SecureConfig:     secure,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		StartTimeout:     c.cfg.StartTimeout,
		SkipHostEnv:      true,
		Logger:           &hclogger{l: c.logger, stderr: filepath.Base(cmd.Path)},
		Stderr:           stderr,
		SyncStderr:       &lineLogger{l: c.logger, stream: "stderr"},
		SyncStdout:       &lineLogger{l: c.logger, stream: "stdout"},
		GRPCDialOptions:  wire.DialOptions(),
	})
	fail := func(err error) (*instance, plugins.Description, error) {
		client.Kill()
		if cmd.Process != nil {
			killGroup(cmd.Process.Pid)
		}
		if errors.Is(err, plugin.ErrChecksumsDoNotMatch) {
			got, herr := fileSHA256(cmd.Path)
			if herr != nil {
				got = "unreadable (" + herr.Error() + ")"
			}
			return nil, plugins.Description{}, fmt.Errorf("plugin %q: refused to start %s: %w: the file's sha256 is %s, the config pins %s",
				c.cfg.Name, cmd.Path, ErrChecksum, got, strings.ToLower(strings.TrimSpace(c.cfg.SHA256)))
		}
		if tail := stderr.Tail(); len(tail) > 0 {
			err = fmt.Errorf("%w (its stderr: %s)", err, strings.Join(tail, " | "))
		}
		return nil, plugins.Description{}, fmt.Errorf("plugin %q: start %s: %w", c.cfg.Name, cmd.Path, err)
	}

	rpcClient, err := client.Client()
	if err != nil {
		return fail(err)
	}
	handshake := time.Since(t0)
	raw, err := rpcClient.Dispense(wire.PluginName)
	if err != nil {
		return fail(err)
	}
	rpc, ok := raw.(plugins.Capability)
	if !ok {
		return fail(fmt.Errorf("dispensed %T, not a plugins.Capability", raw))
	}
	inst := &instance{client: client, rpc: rpc, handshake: handshake}
	if rc := client.ReattachConfig(); rc != nil {
		inst.pid = rc.Pid
	}
	inst.ctx, inst.cancel = context.WithCancel(context.Background())

	sctx, cancel := context.WithDeadline(ctx, t0.Add(c.cfg.StartTimeout))
	defer cancel()
	ack := make(chan struct{})
	c.wg.Add(1)
	go c.watch(inst, ack)
	select {
	case <-ack:
	case <-sctx.Done():
		inst.cancel()
		return fail(fmt.Errorf("no answer to the skills watch: %w", sctx.Err()))
	}
	d, err := rpc.Describe(sctx)
	if err != nil {
		inst.cancel()
		return fail(fmt.Errorf("describe: %w", remoteErr(err)))
	}
	inst.started = time.Since(t0)
	return inst, d, nil
}
