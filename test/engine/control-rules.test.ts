/**
 * The run controls' rule matrix on the real turn loop, each wire's fake provider playing the model
 * (see turn-loop-harness.ts): one test process for the four controls, each module registering its
 * suites. The HTTP suites in test/runs/ keep the wiring of each control.
 */
import './control-rules/loop-and-budget.ts';
import './control-rules/structured-output.ts';
import './control-rules/supervisor.ts';
import './control-rules/task-plan.ts';
