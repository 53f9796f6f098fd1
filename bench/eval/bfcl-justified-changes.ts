/**
 * The BFCL answers the previous release accepted with a value faithful to the text that this release
 * refuses, each with the reason (see `bfcl-differential.ts`). None of them matched BFCL's possible
 * answer: the previous release accepted a repetition, an invented result or an example as a further
 * call, or the calls before a cut. A change that is not listed here fails `test/corpus/bfcl-differential.test.ts`.
 */

const CUT_BLOCK =
  'ends in a <tool_call> block opened and never closed with a call in it (the format closes every block): a cut whatever the stop reason; the previous release took the calls before it'
const REPEATED_IN_PROSE = 'a later turn quotes the call again in prose (inline code): a repetition, not a second call; the previous release took it as one'
const INVENTED_RESULT = "a later turn holds an invented function result after prose: not a call; the previous release took it as the call's second half"
const EXAMPLE_IN_PROSE = 'a note after the call gives a modified call as an example: not a call; the previous release took it as one'
const CODE_THEN_CALL = 'the same call written as Python code, then again after prose: a repetition; the previous release took both'
const REFUSAL_CODE = 'a refusal whose Python code sample holds a dict with a bare name (case_id): code, not an answer'

export const JUSTIFIED_CHANGES: Readonly<Record<string, string>> = {
  'NousResearch_Hermes-2-Pro-Llama-3-70B/multiple_function_56': CUT_BLOCK,
  'NousResearch_Hermes-2-Pro-Llama-3-70B/multiple_function_164': CUT_BLOCK,
  'NousResearch_Hermes-2-Pro-Llama-3-70B/parallel_function_69': CUT_BLOCK,
  'NousResearch_Hermes-2-Pro-Llama-3-70B/parallel_function_156': CUT_BLOCK,
  'NousResearch_Hermes-2-Pro-Llama-3-70B/parallel_function_174': CUT_BLOCK,
  'NousResearch_Hermes-2-Pro-Llama-3-70B/parallel_multiple_function_158': CUT_BLOCK,
  'NousResearch_Hermes-2-Pro-Llama-3-70B/simple_240': CUT_BLOCK,
  'NousResearch_Hermes-2-Pro-Llama-3-70B/simple_266': CUT_BLOCK,
  'NousResearch_Hermes-2-Theta-Llama-3-70B/simple_188': REPEATED_IN_PROSE,
  'NousResearch_Hermes-2-Theta-Llama-3-70B/simple_206': REPEATED_IN_PROSE,
  'NousResearch_Hermes-2-Theta-Llama-3-70B/simple_246': INVENTED_RESULT,
  'NousResearch_Hermes-2-Theta-Llama-3-70B/simple_309': EXAMPLE_IN_PROSE,
  'THUDM_glm-4-9b-chat/simple_45': CODE_THEN_CALL,
  'THUDM_glm-4-9b-chat/multiple_function_138': REFUSAL_CODE,
}
