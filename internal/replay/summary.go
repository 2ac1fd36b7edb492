package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/clawdoctor/clawdoctor/internal/compaction"
	"github.com/clawdoctor/clawdoctor/internal/hygiene"
	"github.com/clawdoctor/clawdoctor/internal/jsonobj"
	"github.com/clawdoctor/clawdoctor/internal/session"
)

// ToolResultMaxChars is where pi truncates a tool result in the text it summarizes.
const ToolResultMaxChars = 2000

// SummaryInput is the conversation text pi's compaction would hand to the summarizer: the
// messages to summarize (and the split-turn prefix) serialized as serializeConversation does,
// inside <conversation> tags.
func SummaryInput(res *Result) string {
	p := res.Compaction
	var sb strings.Builder
	write := func(r compaction.Range) {
		var msgs []hygiene.Message
		for i := r.From; i < r.To && i < len(res.Context.Path); i++ {
			if m := res.Context.Path[i].Msg; m != nil {
				msgs = append(msgs, m)
			}
		}
		sb.WriteString("<conversation>\n")
		sb.WriteString(SerializeConversation(msgs))
		sb.WriteString("\n</conversation>\n")
	}
	write(p.Summarize)
	if p.Cut.IsSplitTurn && p.TurnPrefix.Len() > 0 {
		sb.WriteString("\n")
		write(p.TurnPrefix)
	}
	return sb.String()
}

// SerializeConversation renders messages as pi's serializeConversation: "[User]: ",
// "[Assistant thinking]: ", "[Assistant]: ", "[Assistant tool calls]: name(k=json, ...)" and
// "[Tool result]: " (truncated to 2000 characters), joined by blank lines. Custom roles
// (custom, bashExecution, branch and compaction summaries) go through session.ConvertToLLM
// first, as pi converts them before serializing.
func SerializeConversation(msgs []hygiene.Message) string {
	var parts []string
	for _, m := range msgs {
		switch hygiene.Role(m) {
		case "user", "assistant", "toolResult":
		default:
			if m = toLLM(m); m == nil {
				continue
			}
		}
		switch hygiene.Role(m) {
		case "user":
			if t := hygiene.TextOf(m); t != "" {
				parts = append(parts, "[User]: "+t)
			}
		case "assistant":
			bl, _ := hygiene.Blocks(m)
			var text, thinking, calls []string
			for _, v := range bl {
				b, ok := hygiene.Block(v)
				if !ok {
					continue
				}
				switch t, _ := hygiene.Str(b, "type"); t {
				case "text":
					s, _ := hygiene.Str(b, "text")
					text = append(text, s)
				case "thinking":
					s, _ := hygiene.Str(b, "thinking")
					thinking = append(thinking, s)
				case "toolCall":
					name, _ := hygiene.Str(b, "name")
					var args []string
					if a, ok := b["arguments"].(map[string]any); ok {
						for _, k := range slices.Sorted(maps.Keys(a)) {
							args = append(args, k+"="+hygiene.Stringify(a[k]))
						}
					}
					calls = append(calls, name+"("+strings.Join(args, ", ")+")")
				}
			}
			if len(thinking) > 0 {
				parts = append(parts, "[Assistant thinking]: "+strings.Join(thinking, "\n"))
			}
			if len(text) > 0 {
				parts = append(parts, "[Assistant]: "+strings.Join(text, "\n"))
			}
			if len(calls) > 0 {
				parts = append(parts, "[Assistant tool calls]: "+strings.Join(calls, "; "))
			}
		case "toolResult":
			t := hygiene.TextOf(m)
			// truncateForSummary: text.length and text.slice count UTF-16 code units
			if n := jsonobj.UTF16Len(t); n > ToolResultMaxChars {
				t = jsonobj.SliceUTF16(t, ToolResultMaxChars) + fmt.Sprintf("\n\n[... %d more characters truncated]", n-ToolResultMaxChars)
			}
			if t != "" {
				parts = append(parts, "[Tool result]: "+t)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// toLLM converts one custom-role message as pi's convertToLlm does (nil when it is dropped).
// ToLLM is convertToLlm over replayed messages: what the provider request is built from.
// user, assistant and toolResult pass through; compaction and branch summaries, custom
// messages and bash executions become user messages; other roles are dropped.
func ToLLM(msgs []hygiene.Message) []hygiene.Message {
	out := make([]hygiene.Message, 0, len(msgs))
	for _, m := range msgs {
		switch hygiene.Role(m) {
		case "user", "assistant", "toolResult":
			out = append(out, m)
		default:
			if c := toLLM(m); c != nil {
				out = append(out, c)
			}
		}
	}
	return out
}

func toLLM(m hygiene.Message) hygiene.Message {
	js, err := jsonobj.MarshalJS(hygiene.Strip([]hygiene.Message{m})[0], true) // lone surrogates kept
	if err != nil {
		return nil
	}
	conv := session.ConvertToLLM([]session.ContextMessage{{Role: hygiene.Role(m), JSON: js}})
	if len(conv) == 0 {
		return nil
	}
	out, err := hygiene.Decode(conv[0].JSON)
	if err != nil {
		return nil
	}
	return out
}

// ErrSummaryTimeout is returned when the summary command runs longer than its timeout.
var ErrSummaryTimeout = errors.New("summary command timed out")

// RunSummaryCmd runs argv (no shell: write "sh -c '…'" to get one) with text on its stdin and
// returns its stdout. The command is killed after timeout.
func RunSummaryCmd(ctx context.Context, argv []string, text string, timeout time.Duration) (string, error) {
	if len(argv) == 0 {
		return "", errors.New("empty summary command")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(jsonobj.ToUTF8(text)) // as Node writes a string: a lone surrogate is U+FFFD
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return out.String(), fmt.Errorf("%s: %w after %s", argv[0], ErrSummaryTimeout, timeout)
	}
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg != "" {
			return out.String(), fmt.Errorf("summary command %s: %w: %s", argv[0], err, msg)
		}
		return out.String(), fmt.Errorf("summary command %s: %w", argv[0], err)
	}
	return out.String(), nil
}

// SplitCommand splits a command line into words: blanks separate words, single quotes keep
// everything literally, double quotes and backslashes work as in a POSIX shell (no
// expansions). It never runs a shell.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case ch == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}

// Summarize pipes the text to be summarised to the user's command and records the run in
// res.Summary (its output, or why it failed).
func Summarize(ctx context.Context, res *Result, argv []string, timeout time.Duration) {
	text := SummaryInput(res)
	out, err := RunSummaryCmd(ctx, argv, text, timeout)
	res.Summary = &SummaryRun{Command: argv, InputChars: len(text), Output: out}
	if err != nil {
		res.Summary.Error = err.Error()
	}
}
