package permissions

// Set is a compiled set of permission layers.
type Set struct {
	mode Mode
}

// Compile parses every rule of the layers.
func Compile(layers []Layer) (*Set, error) { return &Set{mode: ModeDefault}, nil }

// Decide decides a call.
func (s *Set) Decide(c Call, preapproved []Rule) Decision {
	return Decision{Behavior: Allow, List: "defaultMode"}
}

// Mode returns the default mode.
func (s *Set) Mode() Mode {
	if s == nil {
		return ModeDefault
	}
	return s.mode
}
