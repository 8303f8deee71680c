package testkit

// Hidden holds one example of each class of character package
// kernel/sanitize makes visible, with the escape a reader then sees: the
// table the tests of every output that shows text from files and servers
// go over (skills list and catalog, run, sessions show, the TUI, the model
// request, the MCP server). Each Raw holds exactly one hidden character.
var Hidden = []struct{ Class, Raw, Escaped string }{
	{"C0 control (ESC: a terminal title sequence)", "\x1b]0;pwned", `\u001b]0;pwned`},
	{"C0 control (NUL)", "\x00", `\u0000`},
	{"C0 control (BEL)", "\a", `\u0007`},
	{"lone carriage return", "\r", `\u000d`},
	{"DEL", "\x7f", `\u007f`},
	{"C1 control (CSI)", "\u009b", `\u009b`},
	{"bidi override (RLO)", "\u202e", `\u202e`},
	{"bidi isolate (FSI)", "\u2068", `\u2068`},
	{"bidi mark (ALM)", "\u061c", `\u061c`},
	{"zero-width space", "\u200b", `\u200b`},
	{"zero-width joiner", "\u200d", `\u200d`},
	{"word joiner", "\u2060", `\u2060`},
	{"byte order mark", "\ufeff", `\ufeff`},
	{"TAG character (ASCII smuggling)", "\U000E0041", `\U000e0041`},
	{"TAG block, unassigned", "\U000E0002", `\U000e0002`},
	{"line separator", "\u2028", `\u2028`},
	{"invalid UTF-8 (a lone 0xff byte)", "\xff", `\xff`},
}
