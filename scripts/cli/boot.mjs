// Starts the satang command line from any working directory: tsx is resolved from this
// file's folder (`node --import tsx` would look for it under the current directory and
// fail outside the repository), then main.ts runs with the caller's arguments.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
