"""Frequent function words of English and of the other languages most often met in Latin script.

English prose spends about two words in five on the function words listed here; text in another
language spends almost none on them, and many on its own (listed for German, French, Spanish, Dutch,
Italian, Portuguese, Indonesian, Turkish, Polish, Swahili and Finnish). language.py reads a text as
English by that share.
"""

from __future__ import annotations

from bertscore_plugins.facts.lexicon.words import listed

ENGLISH_WORDS = frozenset(
    listed("""a about after all also an and any are as at be because been before being between both but by
    can could did do does during each for from had has have he her him his how i if in into is it its may
    might more most must my no not of on one only or other our out over said she should since so some such
    than that the their them then there these they this those through to under up us very was we were what
    when where which while who whom why will with would you your""")
)
OTHER_LANGUAGE_WORDS = frozenset(
    # German, French, Spanish, Dutch, Italian, Portuguese
    listed("""au auf aus aux avec bei ce cette che com con dans das del della dem den der des di die du een ein
    eine einen el es est et für gli het il im ist la las le les los mit nach nel nicht niet não os para
    pas por pour que qui se sich sind sono sont sur uma una und une von wird wurde y zijn zu été""")
    # Indonesian
    + listed("""yang dan ke dari ini itu dengan untuk pada adalah tidak akan juga oleh dalam telah sudah bahwa
    atau karena saat tersebut bisa""")
    # Turkish
    + listed("""ve bir bu da için ile olarak çok daha gibi ama olan ne mi ki sonra kadar şu değil var yok""")
    # Polish
    + listed(
        """w z się nie że jest jak po ale od przez dla jego był była są oraz który która które tym tak już"""
    )
    # Swahili
    + listed("""ya wa kwa ni za katika cha kama hii huo lakini pia wake yake alikuwa kuwa si hiyo""")
    # Finnish
    + listed("""ja oli ei että kun mutta tai hän ovat myös kanssa joka jo vuonna tämä ole""")
)
