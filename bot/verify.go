package bot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/slack-go/slack"
)

// Identity is who the bot is in the workspace, from auth.test.
type Identity struct {
	Team, TeamID, User, UserID, BotID, URL string
	// Scopes are the bot token's scopes (nil when Slack did not say).
	Scopes []string
}

// SetupError is a start-up failure with what to do about it.
type SetupError struct {
	What string // "bot token", "app-level token", "Slack"
	Msg  string
	Err  error
}

func (e *SetupError) Error() string {
	if e.Err != nil {
		return e.What + ": " + e.Msg + " (" + e.Err.Error() + ")"
	}
	return e.What + ": " + e.Msg
}

func (e *SetupError) Unwrap() error { return e.Err }

// baseScopes are the bot token scopes the bot always uses. channels:read,
// groups:read and mpim:read let conversations.info say what a mention's
// conversation is (a channel, private or not, or a group DM, where the bot
// does not answer) and its name: a mention carries neither.
var baseScopes = []string{"app_mentions:read", "channels:read", "chat:write", "commands", "groups:read", "mpim:read", "reactions:write"}

// RequiredScopes lists the bot token scopes this configuration uses: user
// groups in access rules need usergroups:read, direct messages
// (access.allowDMs) need im:history for the message.im events.
func RequiredScopes(c Config) []string {
	s := slices.Clone(baseScopes)
	if c.Service != nil && c.Service.Policy != nil {
		if c.Service.Policy.AllowDMs {
			s = append(s, "im:history")
		}
		if len(c.Service.Policy.Groups()) > 0 {
			s = append(s, "usergroups:read")
		}
	}
	slices.Sort(s)
	return s
}

// checkTokens looks at the tokens' shape before anything is sent.
func checkTokens(c Config) error {
	bot, app := c.BotToken.Reveal(), c.AppToken.Reveal()
	switch {
	case bot == "":
		return &SetupError{What: "bot token", Msg: "IMGUPD_SLACK_BOT_TOKEN is not set (nor slack.bot-token in the configuration file): install the Slack app and copy its Bot User OAuth Token (xoxb-…) from OAuth & Permissions"}
	case app == "":
		return &SetupError{What: "app-level token", Msg: "IMGUPD_SLACK_APP_TOKEN is not set (nor slack.app-token in the configuration file): create an app-level token with the connections:write scope under Basic Information → App-Level Tokens (xapp-…)"}
	case strings.HasPrefix(bot, "xapp-") && strings.HasPrefix(app, "xoxb-"):
		return &SetupError{What: "tokens", Msg: "IMGUPD_SLACK_BOT_TOKEN and IMGUPD_SLACK_APP_TOKEN are swapped"}
	case !strings.HasPrefix(bot, "xoxb-"):
		return &SetupError{What: "bot token", Msg: "IMGUPD_SLACK_BOT_TOKEN does not start with xoxb-: use the Bot User OAuth Token, not a user (xoxp-) or app-level (xapp-) token"}
	case !strings.HasPrefix(app, "xapp-"):
		return &SetupError{What: "app-level token", Msg: "IMGUPD_SLACK_APP_TOKEN does not start with xapp-: create an app-level token with connections:write under Basic Information → App-Level Tokens"}
	}
	return nil
}

// Verify checks both tokens against Slack: auth.test with the bot token
// (and its scopes), apps.connections.open with the app-level token. Each
// failure names the token and what to do.
func (b *Bot) Verify(ctx context.Context) (Identity, error) {
	if err := checkTokens(b.cfg); err != nil {
		return Identity{}, err
	}
	at, err := b.api.AuthTestContext(ctx)
	if err != nil {
		b.apiError("auth.test", err)
		return Identity{}, tokenError("bot token", "IMGUPD_SLACK_BOT_TOKEN", err)
	}
	id := Identity{Team: at.Team, TeamID: at.TeamID, User: at.User, UserID: at.UserID, BotID: at.BotID, URL: at.URL, Scopes: b.scopes.get()}
	if id.Scopes != nil {
		var missing []string
		for _, s := range RequiredScopes(b.cfg) {
			if !slices.Contains(id.Scopes, s) {
				missing = append(missing, s)
			}
		}
		if len(missing) > 0 {
			return id, &SetupError{What: "bot token", Msg: fmt.Sprintf("the bot token lacks the scope(s) %s: add them under OAuth & Permissions (deploy/slack-app-manifest.yaml lists them all) and reinstall the app",
				strings.Join(missing, ", "))}
		}
	}
	if _, _, err := b.api.StartSocketModeContext(ctx); err != nil {
		b.apiError("apps.connections.open", err)
		return id, tokenError("app-level token", "IMGUPD_SLACK_APP_TOKEN", err)
	}
	return id, nil
}

// tokenError explains a failed call made with a token.
func tokenError(what, env string, err error) error {
	var se slack.SlackErrorResponse
	if errors.As(err, &se) {
		switch se.Err {
		case "invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive":
			return &SetupError{What: what, Msg: fmt.Sprintf("Slack rejects %s (%s): copy the token again from the app's settings", env, se.Err), Err: err}
		case "missing_scope":
			need := se.Needed
			if need == "" && what == "app-level token" {
				need = "connections:write"
			}
			return &SetupError{What: what, Msg: fmt.Sprintf("%s lacks the scope %s: add it in the app's settings", env, need), Err: err}
		}
		return &SetupError{What: what, Msg: "Slack refused " + env + ": " + se.Err, Err: err}
	}
	var sc slack.StatusCodeError
	if errors.As(err, &sc) && sc.Code == http.StatusNotFound {
		return &SetupError{What: what, Msg: "Slack answered 404: Socket Mode is probably off; turn it on under Settings → Socket Mode", Err: err}
	}
	return &SetupError{What: "Slack", Msg: "cannot reach Slack's Web API: check the network and the proxy (HTTPS_PROXY)", Err: err}
}

// scopeRecorder keeps the X-OAuth-Scopes header of auth.test answers:
// slack-go does not expose headers.
type scopeRecorder struct {
	base   http.RoundTripper
	mu     sync.Mutex
	scopes []string
}

func (s *scopeRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.base.RoundTrip(req)
	if err == nil && strings.HasSuffix(req.URL.Path, "/auth.test") {
		if h := resp.Header.Get("X-OAuth-Scopes"); h != "" {
			var sc []string
			for _, p := range strings.Split(h, ",") {
				if p = strings.TrimSpace(p); p != "" {
					sc = append(sc, p)
				}
			}
			s.mu.Lock()
			s.scopes = sc
			s.mu.Unlock()
		}
	}
	return resp, err
}

func (s *scopeRecorder) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.scopes)
}
