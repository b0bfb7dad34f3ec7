// Types of memdex/errors: the error table (see errors.js).
import type { MemdexErrorCode } from './index.js';

/** One row of the error table. */
export interface ErrorInfo {
  /** HTTP status the memdex Worker answers with (LIMIT may use 400, 403 or 429 instead). */
  readonly status: number;
  /** Who raises it: the engine, the JS package, the HTTP Worker only, or the agent tools only. */
  readonly from: 'engine' | 'package' | 'http' | 'tools';
  /** What went wrong. */
  readonly meaning: string;
  /** What to do about it. */
  readonly action: string;
}

/** Every error code with its status, meaning and next step. */
export declare const ERRORS: Readonly<Record<MemdexErrorCode | 'EXISTS', ErrorInfo>>;
/** The HTTP status of a code (500 for an unknown one). */
export declare function statusOf(code: string): number;
/** The table as Markdown (the body of docs/ERRORS.md). */
export declare function errorsMarkdown(): string;
