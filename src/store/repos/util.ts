import { randomUUID } from 'node:crypto';
import { type Expression, type SqlBool, sql } from 'kysely';

export const newId = (): string => randomUUID();
export const toBool = (v: number | null | undefined): boolean => v === 1;
export const fromBool = (v: boolean): number => (v ? 1 : 0);

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text == null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** Case-insensitive partial match where %, _ and \ in the needle match themselves. */
export function containsLiteral(column: string, needle: string): Expression<SqlBool> {
  const escaped = needle.replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql<SqlBool>`${sql.ref(column)} like ${`%${escaped}%`} escape '\\'`;
}

/** Drops undefined keys so a partial update only touches what was given. */
export function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
