package server

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/gin-gonic/gin"
)

// webFiles is the query page: plain HTML, JavaScript and CSS, no build step.
//
//go:embed web/index.html web/app.js web/style.css
var webFiles embed.FS

// page serves the query page.
func (s *Server) page(c *gin.Context) {
	b, err := webFiles.ReadFile("web/index.html")
	if err != nil {
		respondError(c, err)
		return
	}
	c.Header("Cache-Control", "no-cache")
	c.Data(http.StatusOK, "text/html; charset=utf-8", b)
}

// static serves the page's scripts and styles.
func (s *Server) static(c *gin.Context) {
	name := strings.TrimPrefix(path.Clean(c.Param("file")), "/")
	b, err := fs.ReadFile(webFiles, "web/"+name)
	if err != nil || name == "index.html" {
		respondError(c, newAPIError(ErrorNotFound, "no such file: %s", name))
		return
	}
	contentType := "application/octet-stream"
	switch path.Ext(name) {
	case ".js":
		contentType = "text/javascript; charset=utf-8"
	case ".css":
		contentType = "text/css; charset=utf-8"
	}
	c.Header("Cache-Control", "no-cache")
	c.Data(http.StatusOK, contentType, b)
}
