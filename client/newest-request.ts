/**
 * Which of overlapping requests of one kind may still use its answer: only the newest the user made. A request takes
 * a ticket when it starts; a later request, or the user dropping what was asked for (closing the panel it would fill,
 * switching the view), makes every earlier ticket stale, whatever order the answers then land in.
 */
export class NewestRequest {
  private newest = 0

  /**
   * Start a request: every ticket handed out before is stale from now on.
   * @returns this request's ticket.
   */
  start(): number {
    this.newest += 1
    return this.newest
  }

  /** Make every ticket handed out so far stale: nothing asked for so far is wanted any more. */
  drop(): void {
    this.newest += 1
  }

  /**
   * @param ticket - a ticket from start().
   * @returns whether its answer may still be used: no request started and nothing was dropped since it was handed out.
   */
  isNewest(ticket: number): boolean {
    return ticket === this.newest
  }
}
