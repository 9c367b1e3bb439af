// The one fold (issue 39): its records, its joins, the fates read from them. Browser-safe.
export { StoryFold, type FoldBounds } from './fold.ts';
export { answerOf, callFate, isSettled, lastRequest, requestFate, runFate, type AnswerFacts, type CallFate, type RequestFate, type RunFate } from './fates.ts';
export {
  lineOf,
  predecessorOf,
  sessionKey,
  sessionSource,
  type CallStory,
  type FoldEvent,
  type RequestStory,
  type RunStory,
  type SessionStory,
} from './story.ts';
