package bot_test

import (
	"os"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/commands"
)

// TestAppManifest keeps deploy/slack-app-manifest.yaml and the code in
// step: exactly the scopes the bot can use, the events it handles, the
// slash command it registers, Socket Mode and interactivity on.
func TestAppManifest(t *testing.T) {
	data, err := os.ReadFile("../deploy/slack-app-manifest.yaml")
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
