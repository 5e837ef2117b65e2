// Whether this process writes e-mail at all: on when SMTP_URL is set, decided once at start (buildApp).
// Every event source in every role (HTTP ingestion, the offline sweeper, the delivery worker pausing
// an endpoint) writes mail inside its own transaction; one switch set from the configuration reaches
// them all without threading it through each. Off, nothing is written: no backlog floods out the day
// SMTP_URL is set.
let writing = false;

export function setMailWriting(on: boolean): void {
  writing = on;
}

export function isMailWriting(): boolean {
  return writing;
}
