package unit_test

// Smoke tests of the interactive UI (issue 7) in a real pseudo-terminal: the
// helios binary runs on the PTY's slave side, the test types on the master
// side and reads the screen through a small terminal emulator (the renderer
// redraws only the cells that change, so matching the raw byte stream with
// escape sequences stripped would miss text written in pieces).

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: the live /skill: popup end to end — `helios` alone opens the UI
// on a terminal with no model configured (the banner names the config key),
// the popup shows the existing skill, a skill folder created on disk while
// the UI is open appears in the popup without a restart, the draft being
// typed stays as typed, and /quit exits 0 with the terminal restored.
func TestTUIPopupFollowsSkillFolders(t *testing.T) {
	home, work := asmTempDir(t), asmTempDir(t)
	writeFile(t, filepath.Join(work, "helios.config.json"), `{"skills": {"userRoots": []}}`)
	root := filepath.Join(work, ".helios", "skills")
	writeFile(t, filepath.Join(root, "alpha-skill", "SKILL.md"), skillMD("name: alpha-skill\ndescription: Alpha does the first thing.", "Alpha body.\n"))

	ui := tuiStart(t, home, work)
	ui.waitScreen(t, "the banner and the first catalog", func(s string) bool {
		return strings.Contains(s, `set "model"`) && strings.Contains(s, "1 skill") && strings.Contains(s, "catalog complete")
	})

	ui.typ(t, "/skill:")
	ui.waitScreen(t, "the existing skill in the popup", func(s string) bool {
		return tuiLineWith(s, "alpha-skill", "Alpha does the first thing.") != ""
	})

	writeFile(t, filepath.Join(root, "beta-skill", "SKILL.md"), skillMD("name: beta-skill\ndescription: Beta arrived while the UI was open.", "Beta body.\n"))
	ui.waitScreen(t, "the new skill in the popup, without a restart", func(s string) bool {
		return tuiLineWith(s, "beta-skill", "Beta arrived while the UI was open.") != "" &&
			tuiLineWith(s, "alpha-skill", "Alpha does the first thing.") != "" &&
			strings.Contains(s, "2 skills")
	})
	line := tuiLineWith(ui.text(), "› /skill:")
	assert.Equal(t, "› /skill:", strings.TrimSpace(line), "input line: want the draft untouched")

	ui.typ(t, "\x15/quit") // Ctrl-U clears the draft
	ui.waitScreen(t, "the /quit draft", func(s string) bool { return tuiLineWith(s, "› /quit") != "" })
	ui.typ(t, "\r")
	ui.waitExit(t)
	ui.checkRestored(t)
}

// Protects: /skill: with a model configured — the load is added to the
// conversation on the user's behalf (an injected user-side message with
// provenance user:/skill, exactly the text `helios skills load` prints) and
// the model sees it before the next prompt; the streamed answer is shown;
// Ctrl-C exits 0 with the terminal restored and names the saved session.
func TestTUISkillLoadReachesModel(t *testing.T) {
	home, work := asmTempDir(t), asmTempDir(t)
	srv := modeltest.NewServer(t, modeltest.Say("All set, following the skill."))
	writeFile(t, filepath.Join(work, "helios.config.json"), `{
  "skills": {"userRoots": []},
  "model": {"baseURL": "`+srv.URL()+`", "name": "scripted", "apiKeyEnv": ""}
}`)
	writeFile(t, filepath.Join(work, ".helios", "skills", "alpha-skill", "SKILL.md"),
		skillMD("name: alpha-skill\ndescription: Alpha does the first thing.", "Run scripts/go.sh first.\n"))
	load := helios(t, home, work, "skills", "load", "alpha-skill")
	cliExpect(t, load, 0)
	// The CLI adds a newline only when the text lacks one.
	isLoadText := func(s string) bool { return s == load.stdout || s+"\n" == load.stdout }

	ui := tuiStart(t, home, work)
	ui.waitScreen(t, "the status line with the model", func(s string) bool {
		return strings.Contains(s, "model scripted") && strings.Contains(s, "1 skill")
	})
	assert.NotContains(t, ui.text(), "no model", "screen shows a no-model banner with a model configured")
	ui.typ(t, "/skill:alp")
	ui.waitScreen(t, "the popup", func(s string) bool { return tuiLineWith(s, "alpha-skill", "Alpha does") != "" })
	ui.typ(t, "\r")
	ui.waitScreen(t, "the loaded skill", func(s string) bool {
		return strings.Contains(s, "/skill:alpha-skill loaded into the conversation")
	})
	ui.typ(t, "go ahead\r")
	ui.waitScreen(t, "the answer", func(s string) bool { return strings.Contains(s, "All set, following the skill.") })
	ui.typ(t, "\x03")
	ui.waitExit(t)
	ui.checkRestored(t)

	reqs := srv.Requests()
	require.Len(t, reqs, 1, "model got %d requests; want 1", len(reqs))
	msgs := reqs[0].Messages
	iSkill, iPrompt := -1, -1
	for i, m := range msgs {
		switch {
		case m.Role == "user" && isLoadText(m.Content):
			iSkill = i
		case m.Role == "user" && m.Content == "go ahead":
			iPrompt = i
		}
	}
	assert.GreaterOrEqual(t, iSkill, 0, "model messages: the load text at %d, the prompt at %d; want the exact load text before the prompt. Messages: %+v", iSkill, iPrompt, msgs)
	assert.GreaterOrEqual(t, iPrompt, iSkill, "model messages: the load text at %d, the prompt at %d; want the exact load text before the prompt. Messages: %+v", iSkill, iPrompt, msgs)

	// The session is named on exit and its log keeps the load's provenance.
	after := string(ui.rawAfterAltScreen())
	i := strings.Index(after, "session ")
	require.GreaterOrEqual(t, i, 0, "output after the UI; want the session named")
	require.Contains(t, after, "--resume", "output after the UI; want the session named")
	id := strings.Fields(after[i:])[1]
	show := helios(t, home, work, "sessions", "show", id, "--json")
	cliExpect(t, show, 0)
	var log struct {
		Events []struct {
			Type, Provenance, Text string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(show.stdout), &log))
	found := false
	for _, ev := range log.Events {
		found = found || ev.Type == "injected" && ev.Provenance == "user:/skill" && isLoadText(ev.Text)
	}
	assert.True(t, found, "session log has no injected user:/skill event with the load text: %+v", log.Events)
}

// tuiDeadline bounds every wait on the screen; waits end as soon as the
// screen matches.
const tuiDeadline = 20 * time.Second

// tuiProc is helios running on a PTY.
type tuiProc struct {
	cmd     *exec.Cmd
	ptmx    *os.File
	tty     *os.File
	scr     *tuiScreen
	termios *unix.Termios // the slave's settings before helios started
	readers sync.WaitGroup
	exited  chan error
}

// tuiStart starts helios alone (the UI) in dir, with dir's config if it
// has one.
func tuiStart(t *testing.T, home, dir string) *tuiProc {
	t.Helper()
	return tuiStartWith(t, home, dir, configArgs(dir)...)
}

// tuiStartWith starts `helios args...` on a terminal.
func tuiStartWith(t *testing.T, home, dir string, args ...string) *tuiProc {
	t.Helper()
	ptmx, tty, err := pty.Open()
	require.NoError(t, err)
	const rows, cols = 30, 100
	require.NoError(t, pty.Setsize(ptmx, &pty.Winsize{Rows: rows, Cols: cols}))
	before, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	require.NoError(t, err)
	cmd := exec.Command(heliosBin(), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "TERM=xterm-256color")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	require.NoError(t, cmd.Start())
	p := &tuiProc{cmd: cmd, ptmx: ptmx, tty: tty, scr: newTUIScreen(rows, cols), termios: before, exited: make(chan error, 1)}
	p.readers.Add(1)
	go func() {
		defer p.readers.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := ptmx.Read(buf)
			p.scr.write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-p.exited
		}
		tty.Close()
		ptmx.Close()
		p.readers.Wait()
	})
	return p
}

// typ writes keys to the terminal.
func (p *tuiProc) typ(t *testing.T, s string) {
	t.Helper()
	_, err := io.WriteString(p.ptmx, s)
	require.NoError(t, err)
}

func (p *tuiProc) text() string { return p.scr.text() }

// waitScreen waits until the screen satisfies ok, failing with the screen
// after tuiDeadline.
func (p *tuiProc) waitScreen(t *testing.T, what string, ok func(screen string) bool) {
	t.Helper()
	deadline := time.Now().Add(tuiDeadline)
	for {
		s := p.text()
		if ok(s) {
			return
		}
		select {
		case err := <-p.exited:
			p.exited <- err
			t.Fatalf("helios exited (%v) while waiting for %s; screen:\n%s", err, what, s)
		case <-time.After(20 * time.Millisecond):
		}
		require.False(t, time.Now().After(deadline), "no %s within %v; screen:\n%s", what, tuiDeadline, s)
	}
}

// waitExit waits for helios to exit and requires exit status 0.
func (p *tuiProc) waitExit(t *testing.T) {
	t.Helper()
	select {
	case err := <-p.exited:
		p.exited <- err
		require.NoError(t, err, "helios exited with %v; want 0; screen:\n%s", err, p.text())
	case <-time.After(tuiDeadline):
		t.Fatalf("helios did not exit within %v; screen:\n%s", tuiDeadline, p.text())
	}
}

// checkRestored requires the terminal as helios found it: the alternate
// screen left, the cursor shown, bracketed paste off, and the line
// discipline's settings (canonical mode, echo) back.
func (p *tuiProc) checkRestored(t *testing.T) {
	t.Helper()
	after, err := unix.IoctlGetTermios(int(p.tty.Fd()), unix.TCGETS)
	require.NoError(t, err)
	const lflags = unix.ICANON | unix.ECHO | unix.ISIG
	assert.Equal(t, p.termios.Lflag&lflags, after.Lflag&lflags, "termios after exit: lflag %#x iflag %#x oflag %#x; want as before: %#x %#x %#x", after.Lflag&lflags, after.Iflag, after.Oflag, p.termios.Lflag&lflags, p.termios.Iflag, p.termios.Oflag)
	assert.Equal(t, p.termios.Iflag, after.Iflag, "termios after exit: lflag %#x iflag %#x oflag %#x; want as before: %#x %#x %#x", after.Lflag&lflags, after.Iflag, after.Oflag, p.termios.Lflag&lflags, p.termios.Iflag, p.termios.Oflag)
	assert.Equal(t, p.termios.Oflag, after.Oflag, "termios after exit: lflag %#x iflag %#x oflag %#x; want as before: %#x %#x %#x", after.Lflag&lflags, after.Iflag, after.Oflag, p.termios.Lflag&lflags, p.termios.Iflag, p.termios.Oflag)
	// Release the slave so the reader sees the end of the output.
	p.tty.Close()
	p.readers.Wait()
	raw := p.scr.rawBytes()
	for _, m := range []struct{ on, off, what string }{
		{"\x1b[?1049h", "\x1b[?1049l", "alternate screen"},
		{"\x1b[?25l", "\x1b[?25h", "hidden cursor"},
		{"\x1b[?2004h", "\x1b[?2004l", "bracketed paste"},
	} {
		if on, off := bytes.LastIndex(raw, []byte(m.on)), bytes.LastIndex(raw, []byte(m.off)); on >= 0 {
			assert.GreaterOrEqual(t, off, on, "%s entered (%q at %d) and not left (%q at %d)", m.what, m.on, on, m.off, off)
		}
	}
	assert.True(t, bytes.Contains(raw, []byte("\x1b[?1049h")), "the UI never entered the alternate screen")
	assert.False(t, p.scr.inAltScreen(), "the emulated terminal is still on the alternate screen")
}

// rawAfterAltScreen is what helios wrote after leaving the alternate screen.
func (p *tuiProc) rawAfterAltScreen() []byte {
	// helios has exited, but what it wrote last may still sit in the
	// terminal: release the slave and let the reader drain it first.
	p.tty.Close()
	p.readers.Wait()
	raw := p.scr.rawBytes()
	i := bytes.LastIndex(raw, []byte("\x1b[?1049l"))
	if i < 0 {
		return nil
	}
	return []byte(ansi.Strip(string(raw[i:])))
}

// tuiLineWith returns the first screen line containing every part.
func tuiLineWith(screen string, parts ...string) string {
	for l := range strings.SplitSeq(screen, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return l
		}
	}
	return ""
}

// tuiScreen is a minimal VT100/xterm emulator: enough of the cursor,
// erase, insert/delete, scroll-region and mode sequences for what the
// Bubble Tea renderer emits, on a grid of runes (no attributes).
type tuiScreen struct {
	mu          sync.Mutex
	parser      *ansi.Parser
	raw         bytes.Buffer
	rows, cols  int
	main, alt   [][]rune
	grid        [][]rune
	x, y        int
	top, bottom int
	savedX      int
	savedY      int
	wrapNext    bool
	noAutowrap  bool
	onAlt       bool
	last        rune
}

func newTUIScreen(rows, cols int) *tuiScreen {
	s := &tuiScreen{rows: rows, cols: cols, parser: ansi.NewParser()}
	s.main, s.alt = tuiGrid(rows, cols), tuiGrid(rows, cols)
	s.grid, s.bottom = s.main, rows-1
	s.parser.SetHandler(ansi.Handler{
		Print:     s.print,
		Execute:   s.execute,
		HandleCsi: s.csi,
		HandleEsc: s.esc,
	})
	return s
}

func tuiGrid(rows, cols int) [][]rune {
	g := make([][]rune, rows)
	for i := range g {
		g[i] = []rune(strings.Repeat(" ", cols))
	}
	return g
}

func (s *tuiScreen) write(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw.Write(b)
	s.parser.Parse(b)
}

func (s *tuiScreen) rawBytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.raw.Bytes())
}

func (s *tuiScreen) inAltScreen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.onAlt
}

// text is the screen, one line per row, trailing blanks cut.
func (s *tuiScreen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := make([]string, s.rows)
	for i, r := range s.grid {
		lines[i] = strings.TrimRight(strings.ReplaceAll(string(r), "\x00", ""), " ")
	}
	return strings.Join(lines, "\n")
}

func (s *tuiScreen) print(r rune) {
	w := ansi.StringWidth(string(r))
	if w == 0 {
		return
	}
	if s.wrapNext {
		s.x, s.wrapNext = 0, false
		s.lineFeed()
	}
	if s.x+w > s.cols {
		s.x = 0
		s.lineFeed()
	}
	s.grid[s.y][s.x] = r
	if w == 2 && s.x+1 < s.cols {
		s.grid[s.y][s.x+1] = 0
	}
	s.last = r
	s.x += w
	if s.x >= s.cols {
		s.x = s.cols - 1
		s.wrapNext = !s.noAutowrap
	}
}

func (s *tuiScreen) execute(b byte) {
	switch b {
	case '\r':
		s.x, s.wrapNext = 0, false
	case '\n', '\v', '\f':
		s.wrapNext = false
		s.lineFeed()
	case '\b':
		s.x, s.wrapNext = max(0, s.x-1), false
	case '\t':
		s.x = min(s.cols-1, (s.x/8+1)*8)
	}
}

func (s *tuiScreen) lineFeed() {
	switch {
	case s.y == s.bottom:
		s.scrollUp(1)
	case s.y < s.rows-1:
		s.y++
	}
}

func (s *tuiScreen) reverseIndex() {
	switch {
	case s.y == s.top:
		s.scrollDown(1)
	case s.y > 0:
		s.y--
	}
}

// scrollUp moves the lines of the scroll region up by n, blanking the
// bottom ones.
func (s *tuiScreen) scrollUp(n int) { s.deleteLinesAt(s.top, n) }

func (s *tuiScreen) scrollDown(n int) { s.insertLinesAt(s.top, n) }

func (s *tuiScreen) deleteLinesAt(y, n int) {
	if y < s.top || y > s.bottom {
		return
	}
	n = min(n, s.bottom-y+1)
	copy(s.grid[y:s.bottom+1], s.grid[y+n:s.bottom+1])
	for i := s.bottom - n + 1; i <= s.bottom; i++ {
		s.grid[i] = []rune(strings.Repeat(" ", s.cols))
	}
}

func (s *tuiScreen) insertLinesAt(y, n int) {
	if y < s.top || y > s.bottom {
		return
	}
	n = min(n, s.bottom-y+1)
	copy(s.grid[y+n:s.bottom+1], s.grid[y:s.bottom+1-n])
	for i := y; i < y+n; i++ {
		s.grid[i] = []rune(strings.Repeat(" ", s.cols))
	}
}

func (s *tuiScreen) blank(y, from, to int) {
	for x := max(0, from); x < min(s.cols, to); x++ {
		s.grid[y][x] = ' '
	}
}

func (s *tuiScreen) moveTo(x, y int) {
	s.x, s.y, s.wrapNext = min(max(0, x), s.cols-1), min(max(0, y), s.rows-1), false
}

func (s *tuiScreen) csi(cmd ansi.Cmd, params ansi.Params) {
	param := func(i, def int) int {
		v, _, ok := params.Param(i, def)
		if !ok || v == 0 {
			return def
		}
		return v
	}
	if cmd.Intermediate() != 0 {
		return // DECRQM, DECSCUSR and the like change nothing on screen
	}
	switch cmd.Prefix() {
	case '?':
		on := cmd.Final() == 'h'
		if cmd.Final() != 'h' && cmd.Final() != 'l' {
			return
		}
		for i := range params {
			switch v, _, _ := params.Param(i, 0); v {
			case 1049, 1047, 47:
				s.setAltScreen(on)
			case 7:
				s.noAutowrap = !on
			}
		}
		return
	case 0:
	default:
		return // kitty keyboard, modifyOtherKeys, ...
	}
	n := param(0, 1)
	switch cmd.Final() {
	case 'A':
		s.moveTo(s.x, s.y-n)
	case 'B', 'e':
		s.moveTo(s.x, s.y+n)
	case 'C', 'a':
		s.moveTo(s.x+n, s.y)
	case 'D':
		s.moveTo(s.x-n, s.y)
	case 'E':
		s.moveTo(0, s.y+n)
	case 'F':
		s.moveTo(0, s.y-n)
	case 'G', '`':
		s.moveTo(n-1, s.y)
	case 'd':
		s.moveTo(s.x, n-1)
	case 'H', 'f':
		s.moveTo(param(1, 1)-1, n-1)
	case 'J':
		mode, _, _ := params.Param(0, 0)
		switch mode {
		case 0:
			s.blank(s.y, s.x, s.cols)
			for y := s.y + 1; y < s.rows; y++ {
				s.blank(y, 0, s.cols)
			}
		case 1:
			for y := 0; y < s.y; y++ {
				s.blank(y, 0, s.cols)
			}
			s.blank(s.y, 0, s.x+1)
		default:
			for y := range s.rows {
				s.blank(y, 0, s.cols)
			}
		}
	case 'K':
		mode, _, _ := params.Param(0, 0)
		switch mode {
		case 0:
			s.blank(s.y, s.x, s.cols)
		case 1:
			s.blank(s.y, 0, s.x+1)
		default:
			s.blank(s.y, 0, s.cols)
		}
	case 'X':
		s.blank(s.y, s.x, s.x+n)
	case 'b':
		for range n {
			s.print(s.last)
		}
	case '@':
		line := s.grid[s.y]
		n = min(n, s.cols-s.x)
		copy(line[s.x+n:], line[s.x:s.cols-n])
		s.blank(s.y, s.x, s.x+n)
	case 'P':
		line := s.grid[s.y]
		n = min(n, s.cols-s.x)
		copy(line[s.x:], line[s.x+n:])
		s.blank(s.y, s.cols-n, s.cols)
	case 'L':
		s.insertLinesAt(s.y, n)
		s.x = 0
	case 'M':
		s.deleteLinesAt(s.y, n)
		s.x = 0
	case 'S':
		s.scrollUp(n)
	case 'T':
		s.scrollDown(n)
	case 'r':
		top, bottom := param(0, 1)-1, param(1, s.rows)-1
		if top < bottom && bottom < s.rows {
			s.top, s.bottom = top, bottom
		}
		s.moveTo(0, 0)
	case 's':
		s.savedX, s.savedY = s.x, s.y
	case 'u':
		s.moveTo(s.savedX, s.savedY)
	}
}

func (s *tuiScreen) esc(cmd ansi.Cmd) {
	if cmd.Intermediate() != 0 {
		return // charset designations
	}
	switch cmd.Final() {
	case '7':
		s.savedX, s.savedY = s.x, s.y
	case '8':
		s.moveTo(s.savedX, s.savedY)
	case 'M':
		s.reverseIndex()
	case 'D':
		s.lineFeed()
	case 'E':
		s.x = 0
		s.lineFeed()
	case 'c':
		s.main, s.alt = tuiGrid(s.rows, s.cols), tuiGrid(s.rows, s.cols)
		s.grid, s.top, s.bottom, s.onAlt = s.main, 0, s.rows-1, false
		s.moveTo(0, 0)
	}
}

func (s *tuiScreen) setAltScreen(on bool) {
	s.onAlt = on
	if on {
		s.savedX, s.savedY = s.x, s.y
		s.alt = tuiGrid(s.rows, s.cols)
		s.grid = s.alt
		return
	}
	s.grid = s.main
	s.moveTo(s.savedX, s.savedY)
}
