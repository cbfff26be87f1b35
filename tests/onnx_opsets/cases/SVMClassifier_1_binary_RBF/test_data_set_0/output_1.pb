BscoresJ
Ã¿
Ã?`s¾`s>újš½újš=