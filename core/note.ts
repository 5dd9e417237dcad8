// An operator's note on a decision that moves money or closes a case: at least
// limits.reviewNoteLengthMin characters that a person can read. Control and format
// characters (NUL, zero-width spaces and joiners, bidi marks) are not counted, nor is
// the whitespace around the text, so a note that shows as empty is no note.

import { reject, type Rejection } from './errors.ts';
import { limits } from './limits.ts';

const invisible = /[\p{Cc}\p{Cf}]/gu;

/** The characters of `note` a reader sees, around-whitespace trimmed. */
export function readableLength(note: string): number {
  return [...note.replace(invisible, '').trim()].length;
}

/** null when `note` is long enough; else review_note_required, saying what needs it. */
export function checkNote(note: string, what: string): Rejection | null {
  return readableLength(note) >= limits.reviewNoteLengthMin ? null
    : reject('review_note_required', `${what} needs a note of at least ${limits.reviewNoteLengthMin} readable characters.`, { min_length: limits.reviewNoteLengthMin });
}
