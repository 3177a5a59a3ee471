/**
 * The errors of the connector runtime, as Kafka Connect answers them: `{error_code, message}`
 * where the code is the HTTP status itself.
 */
export class ConnectError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ConnectError';
  }
}

export const connectorNotFound = (name: string) => new ConnectError(404, `Connector ${name} not found`);
export const connectorExists = (name: string) => new ConnectError(409, `Connector ${name} already exists`);
export const taskNotFound = (name: string, task: number) =>
  new ConnectError(404, `Task ${name}-${task} not found`);
export const badRequest = (message: string) => new ConnectError(400, message);
