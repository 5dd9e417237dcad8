// An operator's note on a decision that moves money or closes a case: at least
// limits.reviewNoteLengthMin characters that a person can read. What shows as nothing is
// not counted — control and format characters (NUL, zero-width spaces and joiners, bidi
// marks), variation selectors and the combining grapheme joiner, the blank letters
// (Hangul fillers, the braille blank, Khmer's inherent vowels), a glyph's characters past
// the third (one glyph with 19 accents is not 20 characters) — and whitespace counts
// once between words, never around them, so a note that shows as empty is no note.

import { reject, type Rejection } from './errors.ts';
import { limits } from './limits.ts';

const invisible = /[\p{Cc}\p{Cf}\u034F\u115F\u1160\u17B4\u17B5\u2800\u3164\uFE00-\uFE0F\uFFA0\u{E0100}-\u{E01EF}]/gu;

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });
/** Characters one glyph counts for at most: Thai stacks a vowel and a tone mark on a consonant, a Hangul syllable is three jamo. */
const perGlyphMax = 3;

/** The characters of `note` a reader sees, with each run of whitespace one space and none around. */
export function readableLength(note: string): number {
  // Whitespace first (tabs and newlines are control characters too, but they separate words).
  const text = note.replace(/\s+/g, ' ').replace(invisible, '').replace(/ {2,}/g, ' ').trim();
  // One glyph (a grapheme cluster) counts its characters up to three: an "a" under 19
  // accents, or 19 conjoining jamo drawn as one syllable, is not a 20-character note.
  let n = 0;
  for (const { segment } of graphemes.segment(text)) n += Math.min([...segment].length, perGlyphMax);
  return n;
}

/**
 * Whether `name` holds a letter or a digit that shows (not only spaces, invisible or blank
 * characters, or marks with nothing to sit on): a name someone can read.
 */
export function hasReadableName(name: string): boolean {
  return /[\p{L}\p{N}]/u.test(name.replace(invisible, ''));
}

/** null when `note` is long enough; else review_note_required, saying what needs it. */
export function checkNote(note: string, what: string): Rejection | null {
  return readableLength(note) >= limits.reviewNoteLengthMin ? null
    : reject('review_note_required', `${what} needs a note of at least ${limits.reviewNoteLengthMin} readable characters.`, { min_length: limits.reviewNoteLengthMin });
}
