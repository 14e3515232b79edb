// Compressed API answers: a body over 1 KB is compressed once, when it is computed, into brotli (at a fast
// quality: bench/compression.ts measured the levels) and gzip, and both are kept in the answer cache beside the
// JSON, so a cache hit only picks the bytes the client accepts. Each encoding is its own representation with its
// own strong ETag ("hash", "hash-br", "hash-gz"); If-None-Match compares the hash, so a client that switched
// encodings still gets its 304.
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { Negotiator } from '@fastify/accept-negotiator';
import { LRUCache } from 'lru-cache';

export type Encoding = 'br' | 'gzip';

/** Bodies up to this many bytes are sent as they are: compressing would save less than a packet. */
export const MIN_COMPRESS_BYTES = 1024;
/** On a 12 kB list brotli 4 is a third smaller than gzip 6 for about the same time (50 µs); 5-6 gain nothing. */
export const BROTLI_QUALITY = 4;
const GZIP_LEVEL = 6;

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export interface Encoded {
  br?: Buffer;
  gzip?: Buffer;
}

/** Compresses on the thread pool, so the event loop serves other requests meanwhile. */
export async function compress(body: string, encodings: readonly Encoding[] = ['br', 'gzip']): Promise<Encoded> {
  const bytes = Buffer.from(body);
  if (bytes.length <= MIN_COMPRESS_BYTES || encodings.length === 0) return {};
  const [br, gz] = await Promise.all([
    encodings.includes('br') ? brotliAsync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
    }) : undefined,
    encodings.includes('gzip') ? gzipAsync(bytes, { level: GZIP_LEVEL }) : undefined,
  ]);
  return { ...(br && { br: exact(br) }), ...(gz && { gzip: exact(gz) }) };
}

/**
 * zlib hands back its output as a view of its 16 KB working chunk: a 600-byte answer kept in the cache held the
 * whole chunk (3,000 cached lists held 47 MB instead of 5). The cache keeps a copy of exactly the bytes.
 */
function exact(b: Buffer): Buffer {
  if (b.buffer.byteLength === b.length) return b;
  const copy = Buffer.allocUnsafeSlow(b.length);
  b.copy(copy);
  return copy;
}

// Brotli first when the client weighs them alike. Parsed headers are remembered (clients send few kinds), in a
// bounded cache since any client can send any header.
const negotiator = new Negotiator<Encoding>({
  supportedValues: ['br', 'gzip'], cache: new LRUCache<string, string>({ max: 256 }) as unknown as Map<string, string>,
});

/** The encoding to send, from Accept-Encoding (`*` counts as gzip, as in @fastify/static). */
export function negotiate(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  return negotiator.negotiate(acceptEncoding.toLowerCase().replace(/\*/g, 'gzip'));
}

const SUFFIX: Record<Encoding, string> = { br: '-br', gzip: '-gz' };

/** The ETag of the encoded representation: `"abc"` → `"abc-br"`. */
export const etagFor = (etag: string, encoding: Encoding | null) => (
  encoding ? `${etag.slice(0, -1)}${SUFFIX[encoding]}"` : etag);

/** Whether If-None-Match names this answer in any encoding (weak comparison, RFC 9110 13.1.2). */
export function matchesAnyEncoding(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const hash = etag.slice(0, -1);
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === etag || tag === `${hash}-br"` || tag === `${hash}-gz"`;
  });
}
