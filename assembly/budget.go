package assembly

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	kskills "github.com/helios-agents/helios/kernel/skills"
)

// BudgetValue is skills.catalog.budget as written: a number of characters
// (12000, or "12000") or a percentage of model.contextWindow ("2%"). It is
// kept raw while decoding and checked with the keys it depends on, so every
// problem of the catalog keys is reported at once.
type BudgetValue struct {
	raw json.RawMessage
}

// UnmarshalJSON keeps the value for catalogBudget to check.
func (v *BudgetValue) UnmarshalJSON(b []byte) error {
	v.raw = append(json.RawMessage(nil), bytes.TrimSpace(b)...)
	return nil
}

// MarshalJSON writes the value as it was given.
func (v BudgetValue) MarshalJSON() ([]byte, error) {
	if len(v.raw) == 0 {
		return []byte("null"), nil
	}
	return v.raw, nil
}

// budgetSpec is a parsed BudgetValue: chars, or a percentage when percent
// is set.
type budgetSpec struct {
	chars   int
	percent float64
}

func (v BudgetValue) parse() (budgetSpec, error) {
	raw := v.raw
	if len(raw) == 0 {
		return budgetSpec{percent: kskills.DefaultBudgetPercent}, nil
	}
	s := string(raw)
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return budgetSpec{}, err
		}
		s = strings.TrimSpace(s)
	} else if raw[0] == '{' || raw[0] == '[' || raw[0] == 't' || raw[0] == 'f' {
		return budgetSpec{}, fmt.Errorf("want a number of characters or a percentage such as \"2%%\", got %s", kindOf(raw))
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return budgetSpec{}, fmt.Errorf("%q is not a percentage such as \"2%%\"", s)
		}
		if f <= 0 || f > 100 {
			return budgetSpec{}, fmt.Errorf("percentage %s is outside (0, 100]", s)
		}
		return budgetSpec{percent: f}, nil
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return budgetSpec{}, fmt.Errorf("%q is neither a number of characters nor a percentage such as \"2%%\"", s)
	}
	if n != math.Trunc(n) || n < 1 || n > math.MaxInt32 {
		return budgetSpec{}, fmt.Errorf("%s is not a positive whole number of characters", s)
	}
	return budgetSpec{chars: int(n)}, nil
}

// catalogBudget checks the catalog budget's keys together and returns the
// kernel's budget; every problem is reported, each naming its JSON path.
func catalogBudget(cfg Config) (kskills.Budget, error) {
	var errs []error
	b := kskills.Budget{ContextWindow: kskills.DefaultContextWindow, ToolsMax: kskills.DefaultToolsMax}
	if cw := cfg.Model.ContextWindow; cw != nil {
		if *cw <= 0 {
			errs = append(errs, fmt.Errorf("%w: model.contextWindow: %d tokens; it must be positive", ErrConfig, *cw))
		} else {
			b.ContextWindow = *cw
		}
	}
	spec, err := cfg.Skills.Catalog.Budget.parse()
	if err != nil {
		errs = append(errs, fmt.Errorf("%w: skills.catalog.budget: %v", ErrConfig, err))
	}
	if m := cfg.Skills.Tools.Max; m != nil {
		if *m <= 0 {
			errs = append(errs, fmt.Errorf("%w: skills.tools.max: %d; it must be positive", ErrConfig, *m))
		} else {
			b.ToolsMax = *m
		}
	}
	for i, p := range cfg.Skills.Catalog.Pinned {
		if strings.TrimSpace(p) == "" {
			errs = append(errs, fmt.Errorf("%w: skills.catalog.pinned[%d]: empty name", ErrConfig, i))
		}
	}
	if len(errs) > 0 {
		return kskills.Budget{}, errors.Join(errs...)
	}
	b.Chars = spec.chars
	if spec.percent > 0 {
		b.Chars = max(1, kskills.PercentBudget(spec.percent, b.ContextWindow))
	}
	b.Pinned = append([]string(nil), cfg.Skills.Catalog.Pinned...)
	return b, nil
}
