// Package report renders a store as one self-contained HTML page (or an
// index and one page per root problem, for a large store) for the people
// who audit it, and serves it live. Everything an agent wrote is untrusted:
// Markdown goes through goldmark with raw HTML shown as text, every other
// string through html/template, and the page forbids any script but its
// own by a Content-Security-Policy.
package report
