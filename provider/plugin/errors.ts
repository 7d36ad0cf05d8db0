// Errors as the engine understands them: "created but broken" carries ErrorResourceInitFailed in
// the gRPC status details, so the engine keeps the object in state; check failures name properties.
import * as grpc from "@grpc/grpc-js";
import { Any } from "google-protobuf/google/protobuf/any_pb";
import { ErrorResourceInitFailed } from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { ResourceInitError } from "../resources/framework";
import { type Props, type SecretSpec, toStruct } from "./values";

export interface GrpcError {
  code: grpc.status;
  details: string;
  metadata?: grpc.Metadata;
}

/** Any error a handler threw, for a gRPC callback. Messages are already redacted by Operations. */
export function grpcError(err: unknown, opts: { inputs?: Record<string, unknown>; secrets?: (props: Props) => SecretSpec } = {}): GrpcError {
  const e = err as Error;
  const message = e?.message ?? String(err);
  if (!(err instanceof ResourceInitError)) return { code: grpc.status.UNKNOWN, details: message };
  const detail = new ErrorResourceInitFailed();
  detail.setId(err.id);
  detail.setProperties(toStruct(err.properties, opts.secrets?.(err.properties)));
  detail.setReasonsList(err.reasons);
  if (opts.inputs) detail.setInputs(toStruct(opts.inputs, opts.secrets?.(opts.inputs)));
  const any = new Any();
  any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const status = new Status();
  status.setCode(grpc.status.UNKNOWN);
  status.setMessage(message);
  status.addDetails(any);
  const metadata = new grpc.Metadata();
  metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  return { code: grpc.status.UNKNOWN, details: message, metadata };
}
