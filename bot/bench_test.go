package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"golang.org/x/time/rate"

	"github.com/imgupd/imgupd/bot"
	"github.com/imgupd/imgupd/bot/slacklab"
	"github.com/imgupd/imgupd/commands"
	"github.com/imgupd/imgupd/lab"
	"github.com/imgupd/imgupd/present/blockkit"
)

// Benchmarks against the local Slack (bot/slacklab) and the embedded lab,
// each with a reference run in the same process (see bench/README.md):
//
//	go test -run '^$' -bench . -benchtime 40x ./bot/
//
// The per-channel pacing (1 message/s, Slack's limit) is lifted here:
// it is Slack's rule, not the bot's overhead.

func unpaced(c *bot.Config, _ *slacklab.Config) { c.ChannelRate, c.ChannelBurst = rate.Inf, 1 }

// BenchmarkAck measures the time from a slash command frame leaving the
// server to the bot's ack arriving, against a bare socketmode client that
// acks as soon as it reads the envelope.
func BenchmarkAck(b *testing.B) {
	b.Run("reference", func(b *testing.B) {
		srv := slacklab.Start(slacklab.Config{BotToken: botToken, AppToken: appToken})
		defer srv.Close()
		api := slack.New(botToken, slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken(appToken))
		sm := socketmode.New(api)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go sm.RunContext(ctx)
		go func() {
			for evt := range sm.Events {
				if evt.Request != nil && evt.Request.EnvelopeID != "" {
					sm.Ack(*evt.Request)
				}
			}
		}()
		if err := srv.WaitConnections(ctx, 1); err != nil {
			b.Fatal(err)
		}
		ackLatency(b, srv, "explain LIVE_IMAGE_NOT_LIVE")
	})
	b.Run("bot", func(b *testing.B) {
		h := start(b, "healthy-kustomize-argocd", unpaced)
		ackLatency(b, h.srv, "explain LIVE_IMAGE_NOT_LIVE")
	})
}

func ackLatency(b *testing.B, srv *slacklab.Server, text string) {
	ctx := context.Background()
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		env := fmt.Sprintf("ack-%d-%d", time.Now().UnixNano(), i)
		if err := srv.Send(ctx, slacklab.SlashCommand(env, slacklab.Slash{User: alice, Channel: deploys, ChannelName: "deploys", Text: text, ResponseURL: srv.ResponseURL(env)})); err != nil {
			b.Fatal(err)
		}
		ack, err := srv.WaitAck(ctx, env)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, ack.At.Sub(srv.SentAt(env)))
	}
	b.StopTimer()
	reportLatency(b, "ack", lat)
}

// BenchmarkCommandToReport measures the time from a slash command frame to
// the report's chat.postMessage reaching Slack, against the least any bot
// must do: diagnose, render, post (same lab, same Slack server).
func BenchmarkCommandToReport(b *testing.B) {
	b.Run("reference", func(b *testing.B) {
		h := start(b, "report-1-image-not-live", unpaced)
		api := slack.New(botToken, slack.OptionAPIURL(h.srv.APIURL()))
		eng := h.env.Engine()
		ctx := context.Background()
		var lat []time.Duration
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			rep := eng.Diagnose(ctx, h.env.Request())
			p := blockkit.Report(rep, blockkit.Options{Buttons: true})
			if _, _, err := api.PostMessageContext(ctx, deploys, slack.MsgOptionText(p.Message.Text, false), slack.MsgOptionBlocks(p.Message.Blocks.BlockSet...)); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		b.StopTimer()
		reportLatency(b, "report", lat)
	})
	b.Run("bot", func(b *testing.B) {
		h := start(b, "report-1-image-not-live", unpaced)
		ctx := context.Background()
		var lat []time.Duration
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			env := fmt.Sprintf("rep-%d", i)
			before := len(h.srv.CallsTo("chat.postMessage"))
			if err := h.srv.Send(ctx, slacklab.SlashCommand(env, slacklab.Slash{User: alice, Channel: deploys, ChannelName: "deploys", Text: "diagnose web", ResponseURL: h.srv.ResponseURL(env)})); err != nil {
				b.Fatal(err)
			}
			calls, err := h.srv.WaitCalls(ctx, "chat.postMessage", before+1)
			if err != nil {
				b.Fatal(err)
			}
			lat = append(lat, calls[before].At.Sub(h.srv.SentAt(env)))
			// Let the thread replies go out before the next command.
			h.waitFor("the audit line", func() bool { return len(h.auditLines()) == i+1 })
		}
		b.StopTimer()
		reportLatency(b, "report", lat)
	})
}

// BenchmarkMemory50Concurrent measures the peak heap while 50 diagnoses
// run at once through the bot (50 slash commands in flight, 50 reports
// posted), against 50 concurrent diagnoses rendered without Slack.
func BenchmarkMemory50Concurrent(b *testing.B) {
	const n = 50
	b.Run("reference", func(b *testing.B) {
		h := start(b, "report-1-image-not-live", unpaced)
		eng := h.env.Engine()
		var peaks []uint64
		for i := 0; i < b.N; i++ {
			peak := peakHeap(func() {
				var wg sync.WaitGroup
				for j := 0; j < n; j++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rep := eng.Diagnose(context.Background(), h.env.Request())
						_ = blockkit.Report(rep, blockkit.Options{Buttons: true})
					}()
				}
				wg.Wait()
			})
			peaks = append(peaks, peak)
		}
		reportMedianMB(b, peaks)
	})
	b.Run("bot", func(b *testing.B) {
		// A fresh Slack server and bot each round, so what the fake Slack
		// records does not pile up from round to round.
		sc, _ := lab.Builtin("report-1-image-not-live")
		env, err := lab.Start(context.Background(), sc)
		if err != nil {
			b.Fatal(err)
		}
		defer env.Close()
		eng := env.Engine()
		var peaks []uint64
		for i := 0; i < b.N; i++ {
			srv := slacklab.Start(slacklab.Config{BotToken: botToken, AppToken: appToken,
				Channels: []slacklab.Channel{{ID: deploys, Name: "deploys", IsMember: true}}})
			audit := &syncBuffer{}
			bt := bot.New(bot.Config{BotToken: botToken, AppToken: appToken, APIURL: srv.APIURL(), MaxConcurrent: n, MaxConcurrentPerUser: n, // one person's 50: what is measured is the diagnoses, not the per-person limit
				ChannelRate: rate.Inf, ChannelBurst: 1, Audit: slog.New(slog.NewJSONHandler(audit, nil)),
				Service: &commands.Service{Apps: eng.Cluster, Engine: eng, Policy: &commands.Policy{Rules: []commands.Rule{{Name: "all", Channels: []string{"*"}}}}}})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- bt.Run(ctx) }()
			if err := srv.WaitConnections(ctx, 1); err != nil {
				b.Fatal(err)
			}
			peak := peakHeap(func() {
				for j := 0; j < n; j++ {
					env := fmt.Sprintf("mem-%d", j)
					if err := srv.Send(ctx, slacklab.SlashCommand(env, slacklab.Slash{User: alice, Channel: deploys, ChannelName: "deploys", Text: "diagnose web", ResponseURL: srv.ResponseURL(env)})); err != nil {
						b.Fatal(err)
					}
				}
				for len(audit.lines("command")) < n {
					time.Sleep(5 * time.Millisecond)
				}
			})
			peaks = append(peaks, peak)
			cancel()
			<-done
			srv.Close()
		}
		reportMedianMB(b, peaks)
	})
}

// peakHeap runs f and returns the highest HeapInuse above the level
// before it (after a GC), sampled every millisecond, with the default GC
// pacing: what a pod would see.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > base && m.HeapInuse-base > peak.Load() {
				peak.Store(m.HeapInuse - base)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	<-done
	return peak.Load()
}

func reportMedianMB(b *testing.B, peaks []uint64) {
	sort.Slice(peaks, func(i, j int) bool { return peaks[i] < peaks[j] })
	b.ReportMetric(float64(peaks[len(peaks)/2])/(1<<20), "peak-heap-MB")
}

func reportLatency(b *testing.B, name string, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	var sum time.Duration
	for _, l := range lat {
		sum += l
	}
	b.ReportMetric(float64(sum.Microseconds())/float64(len(lat))/1000, name+"-mean-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, name+"-p99-ms")
}
