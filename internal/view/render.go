package view

import (
	"embed"
	"html/template"
	"io"
	"strings"
)

//go:embed assets/*.css assets/*.js assets/*.html
var assets embed.FS

// pageTemplates are the two page skeletons. The data blocks are written between "head" and
// "tail" by writePage, not through the template: they are base64, which needs no escaping,
// and tens of MB through html/template would cost more than the rest of the page.
var pageTemplates = template.Must(template.New("").ParseFS(assets, "assets/*.html"))

func asset(name string) string {
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		panic("view: missing asset " + name) // programming error: assets are embedded
	}
	return string(b)
}

// pageVars fill a page skeleton.
type pageVars struct {
	Kind  string // "session" or "state"
	Title string
	CSS   template.CSS
	JS    template.JS
	CSP   string
}

// ContentSecurityPolicy forbids every network fetch: scripts and styles are inline, images
// are data: URLs, and the compressed blocks are decoded in the page. A page that tried to
// load anything would fail loudly (a CSP violation), never leak.
const ContentSecurityPolicy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src data: blob:"

// writePage writes a self-contained page: the skeleton, the data block and the text chunks
// as <script type="application/octet-stream"> elements, then the script.
func writePage(w io.Writer, kind, title string, data string, chunks []string) error {
	v := pageVars{Kind: kind, Title: title, CSS: template.CSS(asset("page.css")),
		JS: template.JS(asset("common.js") + "\n" + asset(kind+".js")), CSP: ContentSecurityPolicy}
	if err := pageTemplates.ExecuteTemplate(w, "head", v); err != nil {
		return err
	}
	sw := stickyWriter{w: w}
	sw.str(`<script type="application/octet-stream" id="data">`)
	sw.str(data)
	sw.str("</script>\n")
	for i, c := range chunks {
		sw.str(`<script type="application/octet-stream" id="t` + itoa(i) + `">`)
		sw.str(c)
		sw.str("</script>\n")
	}
	if sw.err != nil {
		return sw.err
	}
	return pageTemplates.ExecuteTemplate(w, "tail", v)
}

type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) str(x string) {
	if s.err == nil {
		_, s.err = io.WriteString(s.w, x)
	}
}

// safeTitle keeps a page title short and on one line.
func safeTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = cutBytes(s, 120) + "…"
	}
	return s
}
