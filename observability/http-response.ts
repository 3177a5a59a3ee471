import {
  ServerResponse,
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
} from 'node:http';

/** Header names are case-insensitive; only names of the same length need a closer look. */
function sameName(a: string, b: string): boolean {
  return a === b || (a.length === b.length && a.toLowerCase() === b.toLowerCase());
}

/**
 * A server response whose headers can be given ahead of the head (`presetHeader`) and are then
 * written with the status line, as `writeHead`'s list. Node's `setHeader` validates the name and
 * value, copies the name in lower case and stores an entry for each call, and a plain answer
 * carries several (its request id, the security headers, the rate-limit status, its type and
 * length): more work than the rest of a probe's answer. The list is what `setHeader` would have
 * made: any other use of the headers (set, append, remove, read) first hands it to node in order,
 * so what is answered, and what the header methods see, does not change.
 */
export class ApiResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** Name, value, name, value…: headers set, not yet handed to node. */
  private preset: (string | number)[] | undefined = undefined;

  /** `setHeader`, kept in the list until the head is written. */
  presetHeader(name: string, value: string | number): void {
    const preset = (this.preset ??= []);
    for (let i = 0; i < preset.length; i += 2) {
      if (sameName(preset[i] as string, name)) {
        preset[i + 1] = value;
        return;
      }
    }
    preset.push(name, value);
  }

  override writeHead(
    statusCode: number,
    reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const preset = this.preset;
    // The head alone (node's implicit head, a status only): the list is its headers, at no cost.
    if (preset !== undefined && reason === undefined && headers === undefined) {
      this.preset = undefined;
      return super.writeHead(statusCode, preset as OutgoingHttpHeader[]);
    }
    this.handOverHeaders();
    return super.writeHead(statusCode, reason as string, headers);
  }

  override setHeader(name: string, value: number | string | readonly string[]): this {
    this.handOverHeaders();
    return super.setHeader(name, value);
  }

  override appendHeader(name: string, value: string | readonly string[]): this {
    this.handOverHeaders();
    return super.appendHeader(name, value);
  }

  override removeHeader(name: string): void {
    this.handOverHeaders();
    super.removeHeader(name);
  }

  override getHeader(name: string): number | string | string[] | undefined {
    this.handOverHeaders();
    return super.getHeader(name);
  }

  override getHeaders(): OutgoingHttpHeaders {
    this.handOverHeaders();
    return super.getHeaders();
  }

  override getHeaderNames(): string[] {
    this.handOverHeaders();
    return super.getHeaderNames();
  }

  override hasHeader(name: string): boolean {
    this.handOverHeaders();
    return super.hasHeader(name);
  }

  /**
   * Hands the list to node's own headers, in the order it was given: before a framework that
   * replaces the response's prototype, and with it these methods.
   */
  handOverHeaders(): void {
    const preset = this.preset;
    if (preset === undefined) return;
    this.preset = undefined;
    for (let i = 0; i < preset.length; i += 2) super.setHeader(preset[i] as string, preset[i + 1]!);
  }
}

/**
 * Sets a header of a response not yet answered: kept for the head on an `ApiResponse`, through
 * `setHeader` on any other (a server made elsewhere, a response express has taken over).
 */
export function presetHeader(res: ServerResponse, name: string, value: string | number): void {
  if (res instanceof ApiResponse) res.presetHeader(name, value);
  else res.setHeader(name, value);
}

/** `ApiResponse.handOverHeaders` for any response. */
export function handOverHeaders(res: ServerResponse): void {
  if (res instanceof ApiResponse) res.handOverHeaders();
}
