// The structured log the domain and the adapters write to: fields first, then the message (the
// service's pino logger fits as it is). Each user asks for the levels it writes.
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
