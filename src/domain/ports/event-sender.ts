// Sends one outbound event to the application's endpoint, signed; says what came back.
export interface SendResult {
  /** The answer's status; null when none came (refused, timed out, unreachable). */
  status: number | null;
  /** The first 1 KB of the answer's body, or why no answer came. */
  answer: string;
}

export interface EventSender {
  /** Whether there is somewhere to send yet (the development receiver is known once the service listens). */
  ready(): boolean;
  /** One attempt, the same id and body every time, given up when `signal` aborts; never throws. */
  send(id: string, body: string, signal?: AbortSignal): Promise<SendResult>;
}
