package demo

import "encoding/json"

// MCP Apps (io.modelcontextprotocol/ui), with --apps: a tool that declares
// a UI resource (_meta.ui.resourceUri) and that ui:// resource, an HTML
// page of the MCP Apps profile.

const (
	dashboardURI  = "ui://demo/dashboard.html"
	dashboardMime = "text/html;profile=mcp-app"
	dashboardHTML = "<!doctype html>\n<html><body><h1>mcpwire demo dashboard</h1><p id=\"sum\"></p></body></html>\n"
)

// appTool is the tool --apps adds.
func appTool() toolDef {
	return toolDef{Name: "dashboard", Title: "Dashboard", Description: "Shows the demo's dashboard (an MCP App: its UI is " + dashboardURI + ").",
		InputSchema: schema(``), Meta: json.RawMessage(`{"ui":{"resourceUri":"` + dashboardURI + `"}}`)}
}

// appResource is the resource --apps adds.
func appResource() resourceDef {
	return resourceDef{URI: dashboardURI, Name: "dashboard.html", Title: "Dashboard", Description: "The dashboard tool's UI (MCP Apps).", MimeType: dashboardMime}
}
