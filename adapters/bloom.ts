// A Bloom filter of strings: a fixed number of bits, three a key. "No" is certain; "maybe"
// is wrong for about (1 - e^(-3n/m))^3 of the keys never added (n added, m bits). Used
// where a definite "never seen" spares a database lookup on a hot path: the nonce sketch
// (sqlite/keys.ts) and the archive of closed orders (sqlite/archive.ts).

export class Bloom {
  private readonly words: Uint32Array;
  private readonly mask: number;

  /** `bitsLog2`: the filter holds 2^bitsLog2 bits. */
  constructor(readonly bitsLog2: number) {
    this.words = new Uint32Array(2 ** Math.max(0, bitsLog2 - 5));
    this.mask = 2 ** bitsLog2 - 1;
  }

  add(key: string): void {
    const [a, b, c] = positions(key, this.mask);
    this.words[a >>> 5]! |= 1 << (a & 31);
    this.words[b >>> 5]! |= 1 << (b & 31);
    this.words[c >>> 5]! |= 1 << (c & 31);
  }

  mayHave(key: string): boolean {
    const [a, b, c] = positions(key, this.mask);
    return (this.words[a >>> 5]! & (1 << (a & 31))) !== 0 && (this.words[b >>> 5]! & (1 << (b & 31))) !== 0 && (this.words[c >>> 5]! & (1 << (c & 31))) !== 0;
  }

  clear(): void {
    this.words.fill(0);
  }
}

/** Three bit positions of a key: two FNV-1a variants combined (Kirsch–Mitzenmacher). */
function positions(key: string, mask: number): [number, number, number] {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
  }
  return [(h1 >>> 0) & mask, ((h1 + h2) >>> 0) & mask, ((h1 + 2 * h2) >>> 0) & mask];
}
