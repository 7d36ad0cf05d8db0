// API key shape checks at construction: a bad key fails early, and no message ever carries it.
import { inspect } from "node:util";
import {
  checkKeyShape, CloudPlatformClient, ConfigurationError, InvalidApiKeyError, KEY_KINDS, redactKeys,
} from "../../provider/client";
import { MIN_KEY_BODY } from "../../provider/client/keys";

const BODY = "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0Q7e";
const good = (prefix = "svc_live_") => prefix + BODY;
const BASE = "http://127.0.0.1:9";

/** Runs `fn`, expects an InvalidApiKeyError, and checks no part of the key is in it. */
function refusedWithout(key: string, fn: () => unknown): InvalidApiKeyError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(InvalidApiKeyError);
  const err = caught as InvalidApiKeyError;
  const secretish = key.trim().replace(/^(svc_live_|svc_pat_|mail_live_|mail_test_)/, "");
  for (const text of [err.message, String(err.stack), inspect(err), JSON.stringify(err)]) {
    if (secretish) expect(text).not.toContain(key.trim());
    // Not even a recognisable piece of the secret part.
    if (secretish.length >= 8) expect(text).not.toContain(secretish.slice(0, 8));
  }
  return err;
}

describe("checkKeyShape", () => {
  test.each(Object.keys(KEY_KINDS))("accepts a well-formed %s key and names its kind", (prefix) => {
    expect(checkKeyShape(good(prefix))).toBe(prefix);
    expect(new CloudPlatformClient({ apiKey: good(prefix), baseUrl: BASE }).keyKind).toBe(prefix);
  });

  test("a truncated key", () => {
    const key = good().slice(0, "svc_live_".length + 20);
    const err = refusedWithout(key, () => checkKeyShape(key));
    expect(err.message).toMatch(/truncated/);
    expect(err.message).toContain(`at least ${MIN_KEY_BODY}`);
    expect(err.message).toContain("this one has 20");
  });

  test("the shortest body a real key has is accepted, one character less is not; _ and - are key characters", () => {
    expect(checkKeyShape(`svc_pat_${BODY.slice(0, MIN_KEY_BODY)}`)).toBe("svc_pat_");
    const short = `svc_pat_${BODY.slice(0, MIN_KEY_BODY - 1)}`;
    expect(refusedWithout(short, () => checkKeyShape(short)).message).toContain(`this one has ${MIN_KEY_BODY - 1}`);
    expect(checkKeyShape(`mail_test_${"a-b_".repeat(8)}`)).toBe("mail_test_");
  });

  test("a key with only its prefix", () => {
    const err = refusedWithout("mail_live_", () => checkKeyShape("mail_live_"));
    expect(err.message).toContain("mail key (mail_live_)");
  });

  test("a wrong prefix", () => {
    for (const key of [`sk_live_${BODY}`, `SVC_LIVE_${BODY}`, `svc-live-${BODY}`, BODY]) {
      const err = refusedWithout(key, () => checkKeyShape(key));
      expect(err.message).toMatch(/does not have the shape of a platform key/);
      for (const p of Object.keys(KEY_KINDS)) expect(err.message).toContain(p);
      expect(err.message).toContain("expected a svc_live_, svc_pat_, mail_live_, mail_test_ prefix followed by at least 32 letters and digits");
    }
  });

  test("leading or trailing whitespace, or a newline from a copied file", () => {
    for (const key of [` ${good()}`, `${good()} `, `${good()}\n`, `\t${good()}`]) {
      const err = refusedWithout(key, () => checkKeyShape(key));
      expect(err.message).toMatch(/whitespace/);
    }
  });

  test("characters a key never has", () => {
    for (const key of [`svc_live_${BODY}!`, `svc_live_${BODY.slice(0, 20)} ${BODY.slice(20)}`, `svc_live_${BODY}é`]) {
      refusedWithout(key, () => checkKeyShape(key));
    }
  });

  test("no key at all", () => {
    for (const key of [undefined, null, "", 42]) {
      let err: unknown;
      try {
        checkKeyShape(key);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidApiKeyError);
      expect((err as Error).message).toMatch(/No API key.*cloudplatform:apiKey.*CLOUDPLATFORM_API_KEY/);
    }
  });
});

describe("the client checks at construction", () => {
  test.each([
    ["truncated", good().slice(0, 20)],
    ["wrong prefix", `pk_live_${BODY}`],
    ["whitespace", `${good()}\n`],
  ])("%s key: the constructor throws without the key", (_what, key) => {
    refusedWithout(key, () => new CloudPlatformClient({ apiKey: key, baseUrl: BASE }));
  });

  test("the key is checked before the base URL, and URL errors carry no key", () => {
    refusedWithout("svc_live_short", () => new CloudPlatformClient({ apiKey: "svc_live_short", baseUrl: "not a url" }));
    for (const baseUrl of ["", "not a url", "ftp://example.test"]) {
      let err: unknown;
      try {
        new CloudPlatformClient({ apiKey: good(), baseUrl });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigurationError);
      expect((err as Error).message).not.toContain(BODY);
    }
  });

  test("a trailing slash on the base URL is dropped", () => {
    expect(new CloudPlatformClient({ apiKey: good(), baseUrl: "http://127.0.0.1:9/api//" }).baseUrl).toBe("http://127.0.0.1:9/api");
  });
});

describe("redactKeys", () => {
  test("masks every kind of key inside a text, keeping the prefix", () => {
    const text = `a ${good()} b ${good("svc_pat_")}, c=${good("mail_live_")};d:${good("mail_test_")}`;
    const out = redactKeys(text);
    expect(out).not.toContain(BODY);
    expect(out).toBe("a svc_live_*** b svc_pat_***, c=mail_live_***;d:mail_test_***");
  });
  test("masks the whole key, - and _ included, wherever it starts", () => {
    const key = `svc_live_${"a-b_".repeat(10)}`;
    expect(redactKeys(`{"authorization":"Bearer ${key}"}`)).toBe('{"authorization":"Bearer svc_live_***"}');
    expect(redactKeys(`${key}-tail_end`)).toBe("svc_live_***");
    // A proxy's error page may echo the header URL-encoded, or glued to other word characters.
    expect(redactKeys(`GET /?h=Bearer%20${key}`)).toBe("GET /?h=Bearer%20svc_live_***");
    expect(redactKeys(`token_${key}`)).toBe("token_svc_live_***");
  });

  test("leaves other text alone", () => {
    expect(redactKeys("GET /v1/me failed (ECONNRESET)")).toBe("GET /v1/me failed (ECONNRESET)");
  });
});
