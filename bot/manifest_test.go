package bot_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/commands"
)

var update = flag.Bool("update", false, "rewrite the Slack app manifest's usage hint from the command table")

// manifestPath is the Slack app manifest, the one copy in the repository.
const manifestPath = "../deploy/slack-app-manifest.yaml"

// usageHintRE is the usage hint's line in the manifest.
var usageHintRE = regexp.MustCompile(`(?m)^(\s+usage_hint: ).*$`)

// TestAppManifestUsageHint: the slash command's usage hint is the one the command table gives
// (commands.UsageHint): every chat command. go test ./bot/ -run TestAppManifestUsageHint -update
// rewrites it.
func TestAppManifestUsageHint(t *testing.T) {
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	want := commands.UsageHint()
	if *update {
		if n := len(usageHintRE.FindAll(data, -1)); n != 1 {
			t.Fatalf("%s has %d usage_hint lines, want 1", manifestPath, n)
		}
		data = usageHintRE.ReplaceAll(data, []byte("${1}"+strconv.Quote(want)))
		if err := os.WriteFile(manifestPath, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var m struct {
		Features struct {
			SlashCommands []struct {
				UsageHint string `json:"usage_hint"`
			} `json:"slash_commands"`
		} `json:"features"`
	}
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Features.SlashCommands) != 1 {
		t.Fatalf("%d slash commands, want 1", len(m.Features.SlashCommands))
	}
	if got := m.Features.SlashCommands[0].UsageHint; got != want {
		t.Errorf("usage hint %q, the command table gives %q (go test ./bot/ -run TestAppManifestUsageHint -update)", got, want)
	}
}

// TestAppManifest keeps deploy/slack-app-manifest.yaml and the code in
// step: exactly the scopes the bot can use, the events it handles, the
// slash command it registers, Socket Mode and interactivity on.
func TestAppManifest(t *testing.T) {
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Features struct {
			AppHome struct {
				Messages         bool `json:"messages_tab_enabled"`
				MessagesReadOnly bool `json:"messages_tab_read_only_enabled"`
			} `json:"app_home"`
			SlashCommands []struct {
				Command string `json:"command"`
				URL     string `json:"url"`
			} `json:"slash_commands"`
		} `json:"features"`
		OAuth struct {
			Scopes struct {
				Bot []string `json:"bot"`
			} `json:"scopes"`
		} `json:"oauth_config"`
		Settings struct {
			Events struct {
				BotEvents []string `json:"bot_events"`
			} `json:"event_subscriptions"`
			Interactivity struct {
				Enabled bool `json:"is_enabled"`
			} `json:"interactivity"`
			SocketMode bool `json:"socket_mode_enabled"`
		} `json:"settings"`
	}
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	// The widest configuration: groups and channel names in the rules, DMs allowed.
	widest := bot.Config{Service: &commands.Service{Policy: &commands.Policy{AllowDMs: true,
		Rules: []commands.Rule{{Channels: []string{"#deploys", "dm"}, Groups: []string{"S0PLATFORM"}}}}}}
	want := bot.RequiredScopes(widest)
	got := slices.Clone(m.OAuth.Scopes.Bot)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("manifest bot scopes %v, the bot uses %v", got, want)
	}
	if len(m.Features.SlashCommands) != 1 || m.Features.SlashCommands[0].Command != "/imgupd" || m.Features.SlashCommands[0].URL != "" {
		t.Errorf("slash commands: %+v (want /imgupd without a URL: Socket Mode)", m.Features.SlashCommands)
	}
	if !slices.Equal(m.Settings.Events.BotEvents, []string{"app_mention", "message.im"}) {
		t.Errorf("bot events %v, the bot handles app_mention and message.im", m.Settings.Events.BotEvents)
	}
	if !m.Features.AppHome.Messages || m.Features.AppHome.MessagesReadOnly {
		t.Error("the app home's Messages tab must be on and writable, or people cannot send the bot direct messages")
	}
	if !m.Settings.SocketMode || !m.Settings.Interactivity.Enabled {
		t.Error("Socket Mode and interactivity (the report's buttons) must be on")
	}
}

// TestAppManifestPointsToRealSections: every section the manifest's header sends its reader to
// (FILE.md "Heading") is a heading of that file.
func TestAppManifestPointsToRealSections(t *testing.T) {
	b, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`([\w/.-]+\.md) "([^"]+)"`).FindAllStringSubmatch(string(b), -1)
	if len(refs) == 0 {
		t.Fatal("the manifest's header names no section to follow")
	}
	for _, r := range refs {
		doc, err := os.ReadFile(filepath.Join("..", r[1]))
		if err != nil {
			t.Errorf("%s: %v", r[1], err)
			continue
		}
		if !regexp.MustCompile(`(?m)^#+ ` + regexp.QuoteMeta(r[2]) + `\s*$`).Match(doc) {
			t.Errorf("the manifest sends its reader to %s %q, which has no such heading", r[1], r[2])
		}
	}
}
