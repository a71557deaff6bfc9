// The request validator's shape (JSON Schemas from schemas/, compiled with ajv in src/api/validation.ts):
// a type here so the API and the web dashboard's handlers both take it without importing each other.

export interface Validator {
  /** Validates a JSON body (no coercion; unknown fields are errors) and returns it typed. */
  body<T>(schemaId: string, value: unknown): T;
  /** Validates query parameters (strings coerced to the schema's types, defaults applied). */
  query<T>(schemaId: string, value: Record<string, unknown>): T;
  /** For bulk items: null when valid, else the message. */
  check(schemaId: string, value: unknown): string | null;
  schemas: Record<string, object>;
}
