export { scripted } from './scripted.ts'
export type { ScriptedOptions, ScriptedProvider, ScriptedResponse, ScriptedStep, ScriptedStepFunction } from './scripted.ts'
export { simulated } from './simulated/index.ts'
export type { SimulatedFault, SimulatedOptions, SimulatedProvider } from './simulated/index.ts'
