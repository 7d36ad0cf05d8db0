package main

// RunPlugin: the engine runs a plugin written in Node.js through the language host. Since CLI
// 3.221 a local policy pack (`pulumi preview --policy-pack DIR`, PulumiPolicy.yaml with runtime
// nodejs) is started this way: the host runs @pulumi/pulumi's run-plugin entry point on the pack's
// folder, with the engine's arguments (its address) after it, and streams the process's stdout
// (where the pack's analyzer server prints its port) and stderr back to the engine.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
)

func (h *host) RunPlugin(req *pulumirpc.RunPluginRequest, server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse]) error {
	if h.language != "nodejs" {
		return fmt.Errorf("pulumi-language-%s here is a stand-in that only generates programs; it does not run %s plugins", h.language, h.language)
	}
	ctx := server.Context()
	dir := req.GetPwd()
	opts := map[string]any{}
	if info := req.GetInfo(); info != nil {
		if info.GetProgramDirectory() != "" {
			dir = info.GetProgramDirectory()
		}
		if info.GetOptions() != nil {
			opts = info.GetOptions().AsMap()
		}
	}
	if dir == "" {
		return errors.New("RunPlugin: the request names no plugin folder")
	}

	runPlugin, err := resolveModule(ctx, dir, "@pulumi/pulumi/cmd/run-plugin")
	if err != nil {
		return err
	}
	closer, stdout, stderr, err := rpcutil.MakeRunPluginStreams(server, false)
	if err != nil {
		return err
	}
	defer closer.Close()

	var args []string
	if s, ok := opts["nodeargs"].(string); ok && s != "" {
		args = strings.Fields(s)
	}
	args = append(args, runPlugin, dir)
	args = append(args, req.GetArgs()...)

	env := req.GetEnv()
	if len(env) == 0 {
		env = os.Environ()
	}
	// run-plugin compiles TypeScript itself; a tsconfig the plugin names is read from its folder.
	if p, ok := opts["tsconfig"].(string); ok && p != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+filepath.Join(dir, p))
	}

	cmd := exec.CommandContext(ctx, "node", args...)
	// The plugin's own folder: @pulumi/policy reads the pack's version from ./package.json.
	cmd.Dir = dir
	cmd.Env = env
	// Wrapped, so exec copies the output through its own goroutines and waits for all of it.
	cmd.Stdout = struct{ io.Writer }{stdout}
	cmd.Stderr = struct{ io.Writer }{stderr}
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return server.Send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: int32(exit.ExitCode())}})
		}
		return fmt.Errorf("could not run the plugin in %s: %w", dir, err)
	}
	return closer.Close()
}
