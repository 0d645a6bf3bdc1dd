"""The LLM faithfulness judge, in one place: the client, the prompt, the verdict, the choice from the
environment, the local server and its engine. Phoenix's own evaluator is an adapter in
``bertscore_plugins.integrations.phoenix.phoenix_judge``; the command is ``bertscore-plugins judge``.

Modules (each public name is imported from its module)::

    environment   judge_from_env, JudgeSettings, JUDGE_SETUP_HINT, NO_JUDGE_LINE  (one set of variables)
    yes_no        YesNoJudge  (the engine's Judge: asks yes or no, reads p(yes))
    endpoint      Endpoint, retry_wait (its failure: errors.EndpointError)  (an OpenAI-compatible /v1, spoken with the stdlib)
    prompt        question, prompt_identity, estimated_tokens, PROMPT_VERSION  (what the judge is asked)
    verdict       read_verdict, JudgeVerdict, UnusableAnswer  (an answer -> p(yes) and a label)
    local_model   local_model, LOCAL_MODEL, MEASURED_AUC, MEASURED_AUC_BY_SET, near_chance  (the packaged Gemma 3 270M)
    server        JudgeServer, stop_recorded  (starts and stops the local server)
    serve         the server process: HTTP, body limits, the engine's queue
    protocol      the chat-completions fields it honours, and refuses by name
    decoding      writing an answer, scoring labels
    engine        GemmaEngine  (the GGUF file on transformers; the dequantised copy cached)
"""
