/** A step of a run failed: `message` is the run's failure (`clone failed: …`, `unpack failed: …`). */
export class StepFailed extends Error {}
