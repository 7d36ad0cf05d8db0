// The XML S3 speaks: documents written element by element, and a small reader for the two bodies
// clients send (Delete, CompleteMultipartUpload), which are flat elements with text.
import { s3Error } from "./errors";

const NS = "http://s3.amazonaws.com/doc/2006-03-01/";
const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;" };

/** Element text: quotes may stand as they are; a carriage return survives only as a reference. */
export const escapeXml = (s: string) => s.replace(/[&<>\r]/g, (c) => ESCAPES[c]);

/** One element: text (escaped), or the already written elements it holds; nothing when absent. */
export function el(name: string, value: string | number | boolean | string[] | null | undefined): string {
  if (value === undefined || value === null) return "";
  const inner = Array.isArray(value) ? value.join("") : escapeXml(String(value));
  return `<${name}>${inner}</${name}>`;
}

/** A whole response document, in S3's namespace. */
export function xmlDoc(root: string, children: string[], ns = true): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root}${ns ? ` xmlns="${NS}"` : ""}>${children.join("")}</${root}>`;
}

export interface XmlNode {
  name: string;
  children: XmlNode[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, ent: string) => {
    if (ent.startsWith("#")) {
      const code = ent.startsWith("#x") ? parseInt(ent.slice(2), 16) : parseInt(ent.slice(1), 10);
      if (code > 0x10ffff) throw malformed();
      return String.fromCodePoint(code);
    }
    if (ENTITIES[ent] === undefined) throw malformed();
    return ENTITIES[ent];
  });
}

const malformed = () =>
  s3Error("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema");

/** Parses a document into elements (namespace prefixes and attributes dropped); MalformedXML otherwise. */
export function parseXml(text: string): XmlNode {
  const root: XmlNode = { name: "#document", children: [], text: "" };
  const stack: XmlNode[] = [root];
  const tag = /<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[^\s=>/]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|([^<]+)|(<)/g;
  for (const m of text.matchAll(tag)) {
    const top = stack[stack.length - 1];
    if (m[7]) throw malformed();
    if (m[6] !== undefined) {
      if (stack.length === 1 && m[6].trim() !== "") throw malformed();
      top.text += unescapeXml(m[6]);
    } else if (m[5] !== undefined) top.text += m[5];
    else if (m[2]) {
      const name = m[2].includes(":") ? m[2].slice(m[2].indexOf(":") + 1) : m[2];
      if (m[1]) {
        if (stack.length === 1 || top.name !== name) throw malformed();
        stack.pop();
      } else {
        const node: XmlNode = { name, children: [], text: "" };
        if (stack.length === 1 && root.children.length > 0) throw malformed();
        top.children.push(node);
        if (!m[4]) stack.push(node);
      }
    }
  }
  if (stack.length !== 1 || root.children.length !== 1) throw malformed();
  return root.children[0];
}

export const childrenNamed = (node: XmlNode, name: string) => node.children.filter((c) => c.name === name);
export const childText = (node: XmlNode, name: string): string | undefined => node.children.find((c) => c.name === name)?.text;
