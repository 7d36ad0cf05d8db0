// A Go program on the generated Go SDK (sdk/go), run as an Automation API inline program: the
// program runs in this process, so no Go language host is needed. A Project with an Environment
// and a Service (env vars, one secret), and a VerifiedMailDomain (built by the plugin) in a zone
// the test delegated, go through up, an empty preview, drift (the project's description edited,
// the DKIM record deleted, through the REST API) found by refresh and repaired by up; then the
// project updated and the environment replaced, refresh --yes and up, after which no refresh
// (refresh --preview-only, preview --refresh, up --refresh) changes anything, not even a
// resource's inputs; and destroy with nothing left. Run by test/lifecycle/go.test.ts; prints one
// JSON line of what it saw, and exits non-zero on any failure.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/pulumi-cloudplatform/pulumi-cloudplatform/test/go/harness"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/pulumi-cloudplatform/pulumi-cloudplatform/sdk/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optremove"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	zoneName := cfg.Require("zone")

	project, err := cloudplatform.NewProject(ctx, "app", &cloudplatform.ProjectArgs{
		Name:        pulumi.String("go-shop"),
		Description: pulumi.String(cfg.Require("description")),
	})
	if err != nil {
		return err
	}
	env, err := cloudplatform.NewEnvironment(ctx, "prod", &cloudplatform.EnvironmentArgs{ProjectId: project.ID(), Name: pulumi.String(cfg.Require("env"))})
	if err != nil {
		return err
	}
	if _, err := cloudplatform.NewService(ctx, "web", &cloudplatform.ServiceArgs{
		EnvironmentId: env.ID(), Name: pulumi.String("web"), Type: pulumi.String("WEB"), Image: pulumi.String("nginx:1.27"),
		EnvVars: cloudplatform.ServiceEnvVarArray{
			cloudplatform.ServiceEnvVarArgs{Key: pulumi.String("TOKEN"), Value: pulumi.ToSecret(pulumi.String("t0ken-go-value")).(pulumi.StringOutput), Secret: pulumi.Bool(true)},
			cloudplatform.ServiceEnvVarArgs{Key: pulumi.String("MODE"), Value: pulumi.String("calm")},
		},
	}); err != nil {
		return err
	}
	zone, err := cloudplatform.NewDnsZone(ctx, "zone", &cloudplatform.DnsZoneArgs{Name: pulumi.String(zoneName)})
	if err != nil {
		return err
	}
	verified, err := cloudplatform.NewDnsZoneVerification(ctx, "zone", &cloudplatform.DnsZoneVerificationArgs{ZoneId: zone.ID(), Timeout: pulumi.String("30s")})
	if err != nil {
		return err
	}
	mail, err := cloudplatform.NewVerifiedMailDomain(ctx, "news", &cloudplatform.VerifiedMailDomainArgs{
		Name:    pulumi.String("news." + zoneName),
		ZoneId:  verified.ZoneId,
		Timeout: pulumi.String("30s"),
	}, pulumi.DependsOn([]pulumi.Resource{verified}))
	if err != nil {
		return err
	}
	ctx.Export("projectId", project.ID())
	ctx.Export("kind", env.Kind)
	ctx.Export("zoneId", zone.ID())
	ctx.Export("mailStatus", mail.Status)
	ctx.Export("mailDomainId", mail.DomainId)
	ctx.Export("records", mail.Records.ApplyT(func(rs []cloudplatform.MailDnsRecord) []string {
		names := []string{}
		for _, r := range rs {
			// Name can be null (a record the platform does not label), so the SDK types it *string.
			if r.Name != nil {
				names = append(names, *r.Name)
			}
		}
		return names
	}))
	return nil
}

// api calls the platform's REST API with the test's key.
func api(method, path string, body any) (map[string]any, error) {
	var reader io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		reader = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, os.Getenv("CLOUDPLATFORM_BASE_URL")+path, reader)
	if err != nil {
		return nil, err
	}
	req.Header.Set("authorization", "Bearer "+os.Getenv("CLOUDPLATFORM_API_KEY"))
	req.Header.Set("content-type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	text, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return nil, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, text)
	}
	out := map[string]any{}
	if len(text) > 0 {
		if err := json.Unmarshal(text, &out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func changes[K ~string](summary map[K]int) map[string]int {
	out := map[string]int{}
	for op, n := range summary {
		if op != "same" && n > 0 {
			out[string(op)] = n
		}
	}
	return out
}

// refreshChanges records the refresh changes an operation's events show (test/support/stack.ts
// has the same in TypeScript): a refresh step with a diff or other inputs than it had, or, for a
// standalone refresh, a resource that comes out as other than same. wait returns once the
// operation's events are all read.
func refreshChanges(found *[]string, standalone bool) (chan events.EngineEvent, func()) {
	ch := make(chan events.EngineEvent)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range ch {
			if e.ResOutputsEvent == nil {
				continue
			}
			m := e.ResOutputsEvent.Metadata
			state := m.Old
			if state == nil {
				state = m.New
			}
			if strings.HasPrefix(m.Type, "pulumi:providers:") || state == nil || !state.Custom {
				continue
			}
			kind := m.Type[strings.LastIndex(m.Type, ":")+1:]
			res := kind + "::" + m.URN[strings.LastIndex(m.URN, "::")+2:]
			op := string(m.Op)
			if standalone && op != "same" {
				*found = append(*found, res+" "+op)
			}
			if op != "refresh" && !standalone {
				continue
			}
			named := map[string]bool{}
			for _, d := range m.Diffs {
				named[d] = true
			}
			for k := range m.DetailedDiff {
				named[k] = true
			}
			if len(named) > 0 {
				*found = append(*found, res+" diff "+strings.Join(sortedKeys(named), ","))
			}
			olds, news := map[string]any{}, map[string]any{}
			if m.Old != nil && m.Old.Inputs != nil {
				olds = m.Old.Inputs
			}
			if m.New != nil && m.New.Inputs != nil {
				news = m.New.Inputs
			}
			rewritten := map[string]bool{}
			for _, side := range []map[string]any{olds, news} {
				for k := range side {
					a, _ := json.Marshal(olds[k])
					b, _ := json.Marshal(news[k])
					if !bytes.Equal(a, b) {
						rewritten[k] = true
					}
				}
			}
			if len(rewritten) > 0 {
				*found = append(*found, res+" inputs "+strings.Join(sortedKeys(rewritten), ","))
			}
		}
	}()
	return ch, func() { <-done }
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func run(ctx context.Context) (map[string]any, error) {
	stack, err := harness.InlineStack(ctx, "go", "go-lifecycle", program)
	if err != nil {
		return nil, err
	}
	defer stack.Workspace().RemoveStack(ctx, stack.Name(), optremove.Force())
	for k, v := range map[string]string{"zone": os.Getenv("ZONE"), "description": "v1", "env": "prod"} {
		if err := stack.SetConfig(ctx, k, auto.ConfigValue{Value: v}); err != nil {
			return nil, err
		}
	}
	seen := map[string]any{}

	up, err := stack.Up(ctx)
	if err != nil {
		return nil, err
	}
	seen["up"] = changes(*up.Summary.ResourceChanges)
	out := map[string]any{}
	for k, v := range up.Outputs {
		out[k] = v.Value
	}
	for _, k := range []string{"kind", "mailStatus", "records"} {
		seen[k] = out[k]
	}
	projectID, zoneID := out["projectId"].(string), out["zoneId"].(string)

	preview, err := stack.Preview(ctx, optpreview.Refresh(), optpreview.ExpectNoChanges())
	if err != nil {
		return nil, err
	}
	seen["preview"] = changes(preview.ChangeSummary)

	// drift: the description edited, the DKIM record deleted
	if _, err := api("PATCH", "/v1/projects/"+projectID, map[string]any{"description": "edited by hand"}); err != nil {
		return nil, err
	}
	records, err := api("GET", "/v1/dns-zones/"+zoneID+"/records", nil)
	if err != nil {
		return nil, err
	}
	var dkim map[string]any
	for _, r := range records["data"].([]any) {
		rec := r.(map[string]any)
		if rec["type"] == "TXT" && strings.Contains(rec["name"].(string), "_domainkey") {
			dkim = rec
		}
	}
	if dkim == nil {
		return nil, fmt.Errorf("no DKIM record in zone %s", zoneID)
	}
	if _, err := api("DELETE", "/v1/dns-records/"+dkim["id"].(string), nil); err != nil {
		return nil, err
	}
	time.Sleep(500 * time.Millisecond) // past the propagation delay
	drifted := []string{}
	ch, wait := refreshChanges(&drifted, false)
	drift, err := stack.Preview(ctx, optpreview.Refresh(), optpreview.EventStreams(ch))
	if err != nil {
		return nil, err
	}
	wait()
	sort.Strings(drifted)
	seen["drift"] = changes(drift.ChangeSummary)
	seen["driftRefresh"] = drifted
	repaired, err := stack.Up(ctx, optup.Refresh())
	if err != nil {
		return nil, err
	}
	seen["repair"] = changes(*repaired.Summary.ResourceChanges)
	seen["repairedStatus"] = repaired.Outputs["mailStatus"].Value
	project, err := api("GET", "/v1/projects/"+projectID, nil)
	if err != nil {
		return nil, err
	}
	seen["description"] = project["description"]
	after, err := api("GET", "/v1/dns-zones/"+zoneID+"/records", nil)
	if err != nil {
		return nil, err
	}
	back := false
	for _, r := range after["data"].([]any) {
		rec := r.(map[string]any)
		back = back || (rec["name"] == dkim["name"] && rec["content"] == dkim["content"])
	}
	seen["dkimBack"] = back
	again, err := stack.Preview(ctx, optpreview.Refresh(), optpreview.ExpectNoChanges())
	if err != nil {
		return nil, err
	}
	seen["previewAfter"] = changes(again.ChangeSummary)

	// One resource updated, another replaced (and the service in it), refresh --yes, up: then no refresh changes anything.
	for k, v := range map[string]string{"description": "v2", "env": "staging"} {
		if err := stack.SetConfig(ctx, k, auto.ConfigValue{Value: v}); err != nil {
			return nil, err
		}
	}
	changed, err := stack.Up(ctx)
	if err != nil {
		return nil, err
	}
	seen["change"] = changes(*changed.Summary.ResourceChanges)
	found := []string{}
	ch, wait = refreshChanges(&found, true)
	if _, err := stack.Refresh(ctx, optrefresh.EventStreams(ch)); err != nil {
		return nil, err
	}
	wait()
	afterRefresh, err := stack.Up(ctx)
	if err != nil {
		return nil, err
	}
	seen["afterRefresh"] = changes(*afterRefresh.Summary.ResourceChanges)
	ch, wait = refreshChanges(&found, true)
	if _, err := stack.PreviewRefresh(ctx, optrefresh.EventStreams(ch)); err != nil {
		return nil, err
	}
	wait()
	ch, wait = refreshChanges(&found, false)
	if _, err := stack.Preview(ctx, optpreview.Refresh(), optpreview.ExpectNoChanges(), optpreview.EventStreams(ch)); err != nil {
		return nil, err
	}
	wait()
	ch, wait = refreshChanges(&found, false)
	if _, err := stack.Up(ctx, optup.Refresh(), optup.EventStreams(ch)); err != nil {
		return nil, err
	}
	wait()
	seen["refreshChanges"] = found

	destroyed, err := stack.Destroy(ctx)
	if err != nil {
		return nil, err
	}
	seen["destroy"] = changes(*destroyed.Summary.ResourceChanges)
	state, err := api("GET", "/_emulator/state", nil)
	if err != nil {
		return nil, err
	}
	seen["left"] = state["total"]
	return seen, nil
}

func main() {
	seen, err := run(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "go lifecycle failed:", err)
		os.Exit(1)
	}
	line, _ := json.Marshal(seen)
	fmt.Println(string(line))
}
