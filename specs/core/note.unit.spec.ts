// An operator's note (core/note.ts): at least 20 characters a reader can see. Notes that
// show as empty — zero-width and format characters, NUL, variation selectors, the blank
// letters (Hangul fillers, the braille blank) — and whitespace around or repeated do not
// reach the bound; Thai text counts its characters, marks included.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkNote, readableLength } from '../../core/note.ts';
import { limits } from '../../core/limits.ts';

test('blank-looking notes count nothing, whatever they are made of', () => {
  for (const blank of ['\u200b', '\u0000', '\u3164', '\u115f', '\uffa0', '\u2800', '\u034f', '\ufe0f', '\u202e', '\u2060', ' ', '\t']) {
    const note = blank.repeat(limits.reviewNoteLengthMin + 1);
    assert.is(readableLength(note), 0, `U+${blank.codePointAt(0)!.toString(16).padStart(4, '0')}`);
    assert.is(checkNote(note, 'A review decision')?.code, 'review_note_required');
  }
});

test('readable notes count once per character, whitespace once between words', () => {
  assert.is(readableLength('recalled by the bank'), 20);
  assert.is(readableLength('  recalled   by the\tbank  '), 20, 'runs of whitespace are one space, none around');
  assert.is(readableLength('recalled\u200b by the bank'), 20, 'an invisible character inside does not count');
  assert.is(checkNote('recalled by the bank', 'A reversal'), null);
  assert.is(checkNote('ตรวจสอบกับธนาคารแล้วครับ', 'A reversal'), null, 'Thai, its vowel and tone marks included');
  const short = checkNote('recalled by the ban', 'A reversal');
  assert.is(short?.code, 'review_note_required');
  assert.match(short!.message, /^A reversal needs a note of at least 20 readable characters/);
});

test('a glyph counts at most three characters: one glyph is not a note; Thai counts as it is typed', () => {
  assert.is(readableLength('a' + '\u0301'.repeat(19)), 3, 'an "a" under 19 accents');
  assert.is(readableLength('ก' + '\u0E48'.repeat(19)), 3, 'a Thai consonant under 19 tone marks');
  assert.is(readableLength('\u1100'.repeat(19) + '\u1161'), 3, '19 conjoining jamo and a vowel: one syllable drawn');
  assert.is(readableLength('한국어'), 3, 'precomposed syllables count one each');
  assert.is(checkNote('a' + '\u0301'.repeat(19), 'A decline')?.code, 'review_note_required');
  assert.is(readableLength('ที่'), 3, 'a consonant, a vowel and a tone mark: three, as before');
  assert.is(readableLength('ตรวจสอบกับธนาคารแล้วครับ'), [...'ตรวจสอบกับธนาคารแล้วครับ'].length);
});

test.run();
