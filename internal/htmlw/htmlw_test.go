package htmlw

import (
	"html/template"
	"strings"
	"testing"
)

// oracle is html/template itself: one value in each place the Writer's
// methods write to.
var oracle = template.Must(template.New("").Parse(
	`<p title="{{.}}">{{.}}</p><a href="{{.}}"></a><a href="/app/{{.}}"></a><a href="/c?a={{.}}"></a>`))

func ours(s string) string {
	var w Writer
	w.Raw(`<p title="`).Text(s).Raw(`">`).Text(s).Raw(`</p><a href="`).URL(s).Raw(`"></a><a href="/app/`).URLPart(s).
		Raw(`"></a><a href="/c?a=`).Query(s).Raw(`"></a>`)
	return w.String()
}

func check(t *testing.T, s string) {
	t.Helper()
	var b strings.Builder
	if err := oracle.Execute(&b, s); err != nil {
		t.Fatal(err)
	}
	if got := ours(s); got != b.String() {
		t.Errorf("%q:\n got %s\nwant %s", s, got, b.String())
	}
}

// TestAsHTMLTemplate: every method escapes as html/template does in the
// same place.
func TestAsHTMLTemplate(t *testing.T) {
	for _, s := range []string{"", "plain", `<script>alert("x&y")</script>`, "a+b 'c' \x00 é ü 日本",
		"javascript:alert(1)", "JavaScript:x", "http://h/p?q=1&r=2#f", "mailto:a@b", "data:text/html,x", "/a:b",
		"%41%zz%4", "100%", "\xff\xfe invalid utf-8 \xc3<", "a/b?c=d e", "~-._!*'();:@&=+$,/?#[]"} {
		check(t, s)
	}
	var w Writer
	if got := w.Int(-42).Raw(" ").Int(7).String(); got != "-42 7" {
		t.Errorf("Int: %q", got)
	}
	if got := Escape(`"<&>'+`); got != "&#34;&lt;&amp;&gt;&#39;&#43;" {
		t.Errorf("Escape: %q", got)
	}
}

// FuzzAsHTMLTemplate holds the Writer's escaping against html/template's
// on arbitrary strings.
func FuzzAsHTMLTemplate(f *testing.F) {
	f.Add("<a href='x'>&amp;+</a>")
	f.Add("javascript:%zz%41")
	f.Fuzz(func(t *testing.T, s string) { check(t, s) })
}
