// S3's errors: a code, the status S3 answers it with, and a message. The S3 routes render them as
// S3's XML error body; elsewhere (the control API) they are PlatformErrors like any other.
import { PlatformError } from "../errors";

const STATUS = {
  AccessDenied: 403,
  AccessForbidden: 403,
  AuthorizationHeaderMalformed: 400,
  AuthorizationQueryParametersError: 400,
  BadDigest: 400,
  BadRequest: 400,
  EntityTooLarge: 400,
  EntityTooSmall: 400,
  IncompleteBody: 400,
  InvalidAccessKeyId: 403,
  InvalidArgument: 400,
  InvalidDigest: 400,
  InvalidPart: 400,
  InvalidPartNumber: 416,
  InvalidPartOrder: 400,
  InvalidRange: 416,
  InvalidRequest: 400,
  InvalidURI: 400,
  KeyTooLongError: 400,
  MalformedXML: 400,
  MetadataTooLarge: 400,
  MethodNotAllowed: 405,
  MissingContentLength: 411,
  NoSuchBucket: 404,
  NoSuchCORSConfiguration: 404,
  NoSuchKey: 404,
  NoSuchUpload: 404,
  NotImplemented: 501,
  PermanentRedirect: 301,
  PreconditionFailed: 412,
  RequestTimeTooSkewed: 403,
  SignatureDoesNotMatch: 403,
  XAmzContentSHA256Mismatch: 400,
  InternalError: 500,
} as const;

export type S3Code = keyof typeof STATUS;

export class S3Error extends PlatformError {
  constructor(
    readonly code: S3Code,
    message: string,
    /** Extra elements of the XML body (Key, BucketName, RequestTime, ...), and headers. */
    readonly details: Record<string, string> = {},
    headers: Record<string, string> = {},
  ) {
    super(STATUS[code], message, headers);
  }
}

export const s3Error = (code: S3Code, message: string, details?: Record<string, string>) => new S3Error(code, message, details);

export const accessDenied = (message = "Access Denied") => s3Error("AccessDenied", message);
export const noSuchBucket = (bucket: string) => s3Error("NoSuchBucket", "The specified bucket does not exist", { BucketName: bucket });
export const noSuchKey = (key: string) => s3Error("NoSuchKey", "The specified key does not exist.", { Key: key });
export const noSuchUpload = (uploadId: string) =>
  s3Error("NoSuchUpload", "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.", { UploadId: uploadId });
export const invalidArgument = (name: string, value: string, message: string) =>
  s3Error("InvalidArgument", message, { ArgumentName: name, ArgumentValue: value });
