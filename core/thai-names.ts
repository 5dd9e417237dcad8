// Thai names as a reader sees them, for comparing two spellings of one name: a name typed
// on a phone, copied from a PDF or printed on a slip may differ in code points while it
// shows the same letters, and Unicode normalisation (NFC) does not unify Thai:
//   - SARA AM (ำ, U+0E33) is also written NIKHAHIT + SARA AA (ํา, U+0E4D U+0E32), the
//     form PDF text extraction often gives;
//   - a tone mark (U+0E48–U+0E4B) typed before the above or below vowel it sits with
//     (ศ่ี for ศี่) renders the same, and Thai has no canonical reordering for it;
//   - zero-width space, joiners and the word joiner, which Thai word processors insert to
//     mark word breaks, show as nothing.
// foldThaiName gives one spelling for all of them; it never changes what the name reads as.

const zeroWidth = /[\u200B\u200C\u200D\u2060\uFEFF]/g;
/** NIKHAHIT + SARA AA, the two-character SARA AM. */
const saraAmSplit = /\u0E4D\u0E32/g;
/** A tone mark, then the above or below vowel (or MAITAIKHU) it shares a consonant with. */
const toneBeforeVowel = /([\u0E48-\u0E4B])([\u0E31\u0E34-\u0E3A\u0E47])/g;

/** The name with zero-width characters gone, SARA AM in one code point and each tone mark after its vowel; NFC otherwise. */
export function foldThaiName(name: string): string {
  return name.normalize('NFC').replace(zeroWidth, '').replace(saraAmSplit, '\u0E33').replace(toneBeforeVowel, '$2$1');
}
