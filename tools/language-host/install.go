package main

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"

	"github.com/pulumi/pulumi/sdk/v3/nodejs/npm"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
	"google.golang.org/grpc"
)

// InstallDependencies installs a program's dependencies as the official hosts do, so that
// `pulumi new` and `pulumi install` complete: for Node.js the package manager the project names
// (npm by default), for Python the project's toolchain (a virtualenv and pip by default), with the
// SDK release's own code for both; for Go, `go mod tidy`.
func (h *host) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse],
) error {
	dir, root := req.GetDirectory(), req.GetDirectory()
	opts := map[string]any{}
	if info := req.GetInfo(); info != nil {
		if info.GetProgramDirectory() != "" {
			dir = info.GetProgramDirectory()
		}
		if info.GetRootDirectory() != "" {
			root = info.GetRootDirectory()
		}
		if info.GetOptions() != nil {
			opts = info.GetOptions().AsMap()
		}
	}
	stdout, stderr := &lines{server: server}, &lines{server: server, stderr: true}
	defer stdout.flush()
	defer stderr.flush()
	option := func(name string) string { s, _ := opts[name].(string); return s }

	switch h.language {
	case "python":
		options := toolchain.PythonOptions{Root: root, ProgramDir: dir, Virtualenv: option("virtualenv")}
		switch option("toolchain") { // the project's `toolchain` runtime option; Auto looks for lock files
		case "pip":
			options.Toolchain = toolchain.Pip
		case "poetry":
			options.Toolchain = toolchain.Poetry
		case "uv":
			options.Toolchain = toolchain.Uv
		}
		tc, err := toolchain.ResolveToolchain(options)
		if err != nil {
			return err
		}
		return tc.InstallDependencies(server.Context(), dir, req.GetUseLanguageVersionTools(), true, stdout, stderr)
	case "go":
		cmd := exec.CommandContext(server.Context(), "go", "mod", "tidy")
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, stdout, stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go mod tidy: %w", err)
		}
		return nil
	default:
		_, err := npm.Install(server.Context(), npm.PackageManagerType(option("packagemanager")), dir, false, stdout, stderr)
		return err
	}
}

// lines sends what a command writes to the engine, a line at a time, as the official hosts do.
type lines struct {
	server grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse]
	stderr bool
	buf    bytes.Buffer
}

var _ io.Writer = (*lines)(nil)

func (l *lines) Write(p []byte) (int, error) {
	l.buf.Write(p)
	for {
		i := bytes.IndexByte(l.buf.Bytes(), '\n')
		if i < 0 {
			return len(p), nil
		}
		if err := l.send(l.buf.Next(i + 1)); err != nil {
			return 0, err
		}
	}
}

func (l *lines) flush() {
	if l.buf.Len() > 0 {
		_ = l.send(l.buf.Bytes())
		l.buf.Reset()
	}
}

func (l *lines) send(line []byte) error {
	out := append([]byte(nil), line...)
	if l.stderr {
		return l.server.Send(&pulumirpc.InstallDependenciesResponse{Stderr: out})
	}
	return l.server.Send(&pulumirpc.InstallDependenciesResponse{Stdout: out})
}
