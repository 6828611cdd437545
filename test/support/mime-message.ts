/**
 * Reads what a test needs of a raw RFC 5322 message: a header (unfolded, its RFC 2047 encoded
 * words decoded) and the decoded bodies of its text parts (quoted-printable or base64). Enough
 * for the messages nodemailer writes; not a general MIME parser.
 */

function decodeBytes(encoded: string, encoding: string): string {
  switch (encoding.toLowerCase()) {
    case 'quoted-printable':
      return Buffer.from(
        encoded
          .replace(/=\r?\n/g, '')
          .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) =>
            String.fromCharCode(parseInt(hex, 16)),
          ),
        'latin1',
      ).toString('utf8');
    case 'base64':
      return Buffer.from(encoded.replace(/\s+/g, ''), 'base64').toString('utf8');
    default:
      return encoded;
  }
}

/** `=?UTF-8?Q?Galer=C3=ADa?=` and `=?UTF-8?B?…?=` as the text they stand for. */
function decodeEncodedWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(
      /=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g,
      (_, _charset: string, kind: string, text: string) =>
        kind.toUpperCase() === 'B'
          ? decodeBytes(text, 'base64')
          : decodeBytes(text.replace(/_/g, ' '), 'quoted-printable'),
    );
}

function split(raw: string): { headers: string; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  return { headers: raw.slice(0, end), body: raw.slice(end + 4) };
}

function headerIn(headers: string, name: string): string | undefined {
  const unfolded = headers.replace(/\r\n[ \t]+/g, ' ');
  const line = unfolded
    .split('\r\n')
    .find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line === undefined ? undefined : decodeEncodedWords(line.slice(name.length + 1).trim());
}

/** One header of the message (the first of that name), decoded. */
export function mimeHeader(raw: string, name: string): string | undefined {
  return headerIn(split(raw).headers, name);
}

/** The decoded body of each part of the message by its content type (`text/plain`, …). */
export function mimeBodies(raw: string): Record<string, string> {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(
    split(raw).headers.replace(/\r\n[ \t]+/g, ' '),
  )?.[1];
  const parts = boundary === undefined ? [raw] : raw.split(`--${boundary}`).slice(1, -1);
  const bodies: Record<string, string> = {};
  for (const part of parts) {
    const { headers, body } = split(part.replace(/^\r\n/, ''));
    const type = headerIn(headers, 'Content-Type')?.split(';')[0]?.trim() ?? 'text/plain';
    // The line break before a boundary belongs to the boundary (RFC 2046 5.1.1).
    const content = boundary === undefined ? body : body.replace(/\r\n$/, '');
    const encoding = headerIn(headers, 'Content-Transfer-Encoding') ?? '7bit';
    bodies[type] = decodeBytes(content, encoding).replace(/\r\n/g, '\n');
  }
  return bodies;
}
