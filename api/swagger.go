package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	swaggerfiles "github.com/swaggo/files"
	ginswagger "github.com/swaggo/gin-swagger"
)

// swaggerAssets are the files the classic Swagger UI is made of; they are embedded in the
// binary, so the UI works without internet access.
var swaggerAssets = map[string]bool{
	"index.html": true, "index.css": true, "swagger-initializer.js": true, "oauth2-redirect.html": true,
	"favicon-16x16.png": true, "favicon-32x32.png": true,
	"swagger-ui.css": true, "swagger-ui.js": true, "swagger-ui-bundle.js": true, "swagger-ui-standalone-preset.js": true,
}

// mountSwaggerUI serves the classic Swagger UI at /swagger/ over the live /openapi.json.
func (s *Server) mountSwaggerUI() {
	ui := ginswagger.WrapHandler(swaggerfiles.NewHandler(),
		ginswagger.URL("/openapi.json"),
		ginswagger.DocExpansion("list"),
		ginswagger.PersistAuthorization(true),
	)
	s.engine.GET("/swagger", func(c *gin.Context) { c.Redirect(http.StatusMovedPermanently, "/swagger/index.html") })
	s.engine.GET("/swagger/*asset", func(c *gin.Context) {
		asset := strings.TrimPrefix(c.Param("asset"), "/")
		if asset == "" {
			c.Redirect(http.StatusFound, "/swagger/index.html")
			return
		}
		if !swaggerAssets[asset] {
			s.noRoute(c)
			return
		}
		ui(c)
	})
}
