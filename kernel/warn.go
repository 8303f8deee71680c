package kernel

import (
	"context"
	"log/slog"

	"github.com/helios-agents/helios/kernel/contract"
)

// warn reports w the one way the kernel reports a warning: logged as msg
// with attrs (the text a person reads on stderr), then passed to
// Config.OnWarning when set. Hook-handler failures reach OnWarning the same
// way, through the hook registries the kernel makes.
func (k *Kernel) warn(w contract.Warning, msg string, attrs ...slog.Attr) {
	k.logger.LogAttrs(context.Background(), slog.LevelWarn, msg, attrs...)
	if k.cfg.OnWarning != nil {
		k.cfg.OnWarning(w)
	}
}
