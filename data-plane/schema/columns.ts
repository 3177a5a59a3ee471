/** Flags are integers (0 or 1) so both dialects read them back alike. */
export type Flag = 0 | 1;
