"""Values bound to the wrong thing (a time, a day, a dose that the context attaches to another day, event or
drug) and the same facts bound right: the rows every door must read alike (the faithfulness command, the
recipe, ``evaluate_rows``, trace evaluation)."""

from __future__ import annotations

# (id, question, context, answer, reference, what the explanation must name)
BOUND_WRONG = [
    (
        "time-swap",
        "When does the clinic open on Saturdays?",
        "The clinic opens at 9 am on weekdays and at 10 am on Saturdays.",
        "It opens at 9 am on Saturdays.",
        "It opens at 10 am on Saturdays.",
        "9 am: context says 10 am on Saturdays",
    ),
    (
        "wrong-day",
        "When was the patient discharged?",
        "The patient was admitted on Monday, 3 March, and discharged on Tuesday, 11 March.",
        "The patient was discharged on Thursday, 11 March.",
        "The patient was discharged on Tuesday, 11 March.",
        "Thursday: context says Tuesday",
    ),
    (
        "price-swap",
        "How much is a tea?",
        "At the kiosk, a coffee is $3, while a tea is $2.",
        "A cup of tea is $3.",
        "A tea is $2.",
        "$3: context says tea is $2",
    ),
    (
        "dose-swap",
        "How much paracetamol should be given?",
        "Give ibuprofen 400 mg every 6 hours and paracetamol 500 mg every 4 hours.",
        "Give paracetamol 400 mg.",
        "Give paracetamol 500 mg.",
        "400 mg: context says paracetamol 500 mg",
    ),
]
BOUND_RIGHT = [
    (
        "time-right",
        "When does the clinic open on Saturdays?",
        "The clinic opens at 9 am on weekdays and at 10 am on Saturdays.",
        "On Saturdays it opens at 10 am.",
        "It opens at 10 am on Saturdays.",
    ),
    (
        "hours-list",
        "When does it open on Fridays?",
        "Opening hours: 9 am Monday to Friday, 10 am Saturday.",
        "It opens at 9 am on Fridays.",
        "It opens at 9 am on Fridays.",
    ),
]
