// Package sanitize makes text from files and servers safe to show, to a
// model and to a terminal alike: the characters a reader cannot see, or
// that act on the terminal instead of being shown, are made visible as
// escapes.
//
// A character is hidden (Hidden) when it is
//
//   - a control character (Unicode Cc: C0, DEL and C1), except tab and
//     newline; a carriage return right before a newline is a line ending
//     and is dropped, any other one is escaped (it rewrites the line on a
//     terminal);
//   - a format character (Unicode Cf): the bidi controls (U+202A–U+202E,
//     U+2066–U+2069, U+200E, U+200F, U+061C), the zero-width characters
//     (U+200B–U+200D, U+2060–U+2064, U+FEFF), the soft hyphen, and the TAG
//     characters of "ASCII smuggling" (U+E0001, U+E0020–U+E007F);
//   - in the TAG block at all (U+E0000–U+E007F), or a line or paragraph
//     separator (U+2028, U+2029).
//
// Text escapes each as \u followed by four hex digits (\u202e), or \U and
// eight beyond the Basic Multilingual Plane (\U000e0041); a byte that is not
// valid UTF-8 becomes \x and two (\x9b: some terminals read a lone 0x9b as
// the start of a control sequence). Everything else, emoji and every script
// included, is kept; an emoji joined by U+200D shows its joiner escaped.
// Backslashes are not escaped: a literal "\u202e" in the text reads the
// same as an escaped character, which misleads no one about what it is.
//
// Clean also reports what it found, for the one warning a caller gives per
// skill or extension: Found's String names the count and the first
// character's code point and class.
package sanitize
