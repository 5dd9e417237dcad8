// A multipart/form-data parser (RFC 7578) for bodies already read into memory under the
// upload's byte cap: the slip route needs the whole decoded file anyway (to hash it and
// to fsync it), so parsing a buffer is simpler and safer than streaming to temporary
// files. Returns null for anything that is not well-formed multipart: no opening or
// closing delimiter, a part without headers' end or without a form-data name; and
// 'too_many_parts' for more parts than allowed (well-formed so far, but refused as such).

export interface FormPart {
  readonly name: string;
  readonly filename?: string;
  readonly data: Buffer;
}

const crlf = Buffer.from('\r\n');
const headersEnd = Buffer.from('\r\n\r\n');

/** The boundary parameter of a multipart Content-Type (1–70 characters, RFC 2046), or null. */
export function boundaryOf(contentType: string): string | null {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s"]{1,70}))\s*(?:;|$)/i.exec(contentType);
  return m ? (m[1] ?? m[2]!) : null;
}

export function parseMultipart(body: Buffer, boundary: string, partsMax: number): FormPart[] | null | 'too_many_parts' {
  const delimiter = Buffer.from(`--${boundary}`);
  const nextDelimiter = Buffer.from(`\r\n--${boundary}`);
  let at = body.indexOf(delimiter);
  // The first delimiter opens the body or follows a preamble line.
  if (at < 0 || (at > 0 && !(body[at - 2] === 0x0d && body[at - 1] === 0x0a))) return null;
  const parts: FormPart[] = [];
  for (;;) {
    at += delimiter.length;
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return parts; // "--": the closing delimiter
    while (body[at] === 0x20 || body[at] === 0x09) at++; // transport padding
    if (!body.subarray(at, at + 2).equals(crlf)) return null;
    at += 2;
    let dataStart: number;
    let headerText = '';
    if (body.subarray(at, at + 2).equals(crlf)) dataStart = at + 2; // a part with no headers
    else {
      const end = body.indexOf(headersEnd, at);
      if (end < 0) return null;
      headerText = body.subarray(at, end).toString('utf8');
      dataStart = end + headersEnd.length;
    }
    const dataEnd = body.indexOf(nextDelimiter, dataStart);
    if (dataEnd < 0) return null;
    const disposition = dispositionOf(headerText);
    if (!disposition) return null;
    if (parts.length === partsMax) return 'too_many_parts';
    parts.push({ ...disposition, data: body.subarray(dataStart, dataEnd) });
    at = dataEnd + 2;
  }
}

function dispositionOf(headerText: string): { name: string; filename?: string } | null {
  for (const line of headerText.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'content-disposition') continue;
    const value = line.slice(colon + 1).trim();
    if (!/^form-data\s*(;|$)/i.test(value)) return null;
    const params = new Map<string, string>();
    for (const m of value.matchAll(/;\s*([A-Za-z0-9*_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g)) {
      params.set(m[1]!.toLowerCase(), m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!);
    }
    const name = params.get('name');
    if (name === undefined || name === '') return null;
    const filename = params.get('filename');
    return filename === undefined ? { name } : { name, filename };
  }
  return null;
}
