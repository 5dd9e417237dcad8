// `node --import specs/support/import-trace.mjs …` with SATANG_SPEC_IMPORT_TRACE=<file>:
// the process writes every bare package it imports to that file (import-trace-hooks.mjs).

import { register } from 'node:module';

register(new URL('./import-trace-hooks.mjs', import.meta.url), { data: { file: process.env.SATANG_SPEC_IMPORT_TRACE } });
