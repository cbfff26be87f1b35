BxJ`§¯ÁÍxMÁ·n%ÁñÉvAƒW@n‰EÁbQ1AÊ!ƒÁÜ³.Á7ÊÀÉ/ŒÁôÛAN/´@ASA[ƒAj‰…ÁÂažA{€[A
›s½¿CA.Ž‹Á>ûAoï-As0UA